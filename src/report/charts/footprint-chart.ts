import type { CellResult } from '../../experiments/result.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

/** One bar of the footprint chart (what the spec's data holds). */
export interface FootprintBar {
  readonly network: string;
  readonly planner: string;
  /** Footprint over the lower bound. */
  readonly ratio: number;
  readonly footprint: number;
}

/** Categorical colours safe for colour-blind readers; 'tableau20' past ten planners. */
export function plannerScheme(count: number): string {
  return count <= 10 ? 'tableau10' : 'tableau20';
}

/** Distinct values in order of first appearance. */
export function firstSeen<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/**
 * What a label shows for each key (network or planner): its own label, or, where two
 * keys share a label, the key itself, so that no two bars merge.
 */
function labelsOf(pairs: readonly (readonly [key: string, label: string])[]): Map<string, string> {
  const labelOf = new Map<string, string>();
  for (const [key, label] of pairs) if (!labelOf.has(key)) labelOf.set(key, label);
  const keysPerLabel = new Map<string, number>();
  for (const label of labelOf.values()) keysPerLabel.set(label, (keysPerLabel.get(label) ?? 0) + 1);
  for (const [key, label] of labelOf) if (keysPerLabel.get(label)! > 1) labelOf.set(key, key);
  return labelOf;
}

/** The bars, one per (network, planner), in the order the results list them. */
export function footprintBars(results: readonly CellResult[]): FootprintBar[] {
  const networkLabel = labelsOf(results.map((r) => [r.model, r.modelLabel] as const));
  const plannerLabel = labelsOf(results.map((r) => [r.planner, r.plannerTitle] as const));
  const bars = new Map<string, FootprintBar>();
  for (const result of results) {
    const where = `${result.model} / ${result.planner}`;
    if (!Number.isFinite(result.ratioToLowerBound)) {
      throw new Error(`footprint chart: ${where} has ratio ${result.ratioToLowerBound} to the lower bound (a lower bound of 0?); it cannot be drawn.`);
    }
    const key = JSON.stringify([result.model, result.planner]);
    const seen = bars.get(key);
    if (seen) {
      // Several backends run the same plan: one bar, as long as they agree.
      if (seen.ratio !== result.ratioToLowerBound || seen.footprint !== result.footprint) {
        throw new Error(`footprint chart: ${where} appears twice with different footprints (${seen.footprint} and ${result.footprint} bytes); chart one experiment at a time.`);
      }
      continue;
    }
    bars.set(key, {
      network: networkLabel.get(result.model)!,
      planner: plannerLabel.get(result.planner)!,
      ratio: result.ratioToLowerBound,
      footprint: result.footprint,
    });
  }
  return [...bars.values()];
}

/**
 * Grouped bars: for each network (in the order the results list them) one bar per
 * planner (same), height footprint / lower bound, with a rule at 1.0 labelled
 * "lower bound". Static: no tooltips, no interaction.
 */
export function footprintChartSpec(results: readonly CellResult[], options: { title: string }): VegaLiteSpec {
  const bars = footprintBars(results);
  if (bars.length === 0) throw new Error('footprint chart: there are no results to draw.');
  const networks = firstSeen(bars.map((b) => b.network));
  const planners = firstSeen(bars.map((b) => b.planner));
  const top = Math.max(1, ...bars.map((b) => b.ratio));
  const barWidth = planners.length <= 4 ? 18 : planners.length <= 8 ? 13 : 9;
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, fontSize: 15, anchor: 'start', offset: 12 },
    data: { values: bars.map((b) => ({ ...b })) },
    width: { step: barWidth, for: 'offset' },
    height: 280,
    encoding: {
      y: {
        type: 'quantitative',
        scale: { domain: [0, Math.ceil(top * 10) / 10 + 0.1], nice: false, zero: true },
        axis: { title: 'footprint / lower bound', format: '.1f', tickCount: 8, grid: true },
      },
    },
    layer: [
      {
        mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
        encoding: {
          x: {
            field: 'network',
            type: 'nominal',
            sort: networks,
            scale: { domain: networks, paddingInner: 0.25, paddingOuter: 0.15 },
            axis: { title: null, labelAngle: 0, labelFontSize: 12, labelLimit: 160, ticks: false, domain: true },
          },
          xOffset: { field: 'planner', type: 'nominal', sort: planners, scale: { domain: planners, paddingInner: 0.05 } },
          y: { field: 'ratio', type: 'quantitative' },
          color: {
            field: 'planner',
            type: 'nominal',
            sort: planners,
            scale: { domain: planners, scheme: plannerScheme(planners.length) },
            legend: { title: 'planner', orient: 'bottom', direction: 'horizontal', columns: Math.min(planners.length, 3), labelFontSize: 12, titleFontSize: 12, symbolType: 'square', labelLimit: 260 },
          },
        },
      },
      {
        data: { values: [{ bound: 1 }] },
        mark: { type: 'rule', color: '#333', strokeDash: [6, 4], strokeWidth: 1.5 },
        encoding: { y: { field: 'bound', type: 'quantitative' } },
      },
      {
        data: { values: [{ bound: 1, label: 'lower bound' }] },
        mark: { type: 'text', align: 'left', baseline: 'middle', dx: 5, fontSize: 11, color: '#333' },
        encoding: {
          x: { value: 'width' },
          y: { field: 'bound', type: 'quantitative' },
          text: { field: 'label', type: 'nominal' },
        },
      },
    ],
    config: { view: { stroke: null }, axis: { labelFontSize: 11, titleFontSize: 12 } },
  } as VegaLiteSpec;
}
