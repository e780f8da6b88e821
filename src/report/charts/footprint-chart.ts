import { ExperimentError } from '../../experiments/experiment-error.ts';
import type { CellResult } from '../../experiments/result.ts';
import { logTicks, ratioAxisEnd, ratioTicks } from './axis-values.ts';
import { paperFigure, wrappedLabelExpr } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

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

/**
 * The bars, one per (network, planner), in the order the results list them: the plan's
 * footprint over the lower bound on the experiment's records. Backends that ran the same plan
 * share its bar, whatever they executed (a measured cell's `footprint` is the plan it ran on
 * its own records: the CPU executor's with its kernels' scratch, WebGPU's with activations
 * fused). Should two backends' ratios differ, each gets a bar, the planner named with the
 * backends it stands for: "Greedy by Size (cpu)", "Greedy by Size (webgpu, browser)".
 */
export function footprintBars(results: readonly CellResult[]): FootprintBar[] {
  const networkLabel = labelsOf(results.map((r) => [r.model, r.modelLabel] as const));
  const plannerLabel = labelsOf(results.map((r) => [r.planner, r.plannerTitle] as const));
  // Per (network, planner): its distinct ratios, each with the backends that gave it.
  const cells = new Map<string, { readonly result: CellResult; readonly backends: string[] }[]>();
  for (const result of results) {
    const where = `${result.model} / ${result.planner}`;
    if (!Number.isFinite(result.ratioToLowerBound)) {
      throw new ExperimentError(`footprint chart: ${where} has ratio ${result.ratioToLowerBound} to the lower bound (a lower bound of 0?); it cannot be drawn.`);
    }
    const key = JSON.stringify([result.model, result.planner]);
    const variants = cells.get(key) ?? [];
    cells.set(key, variants);
    const same = variants.find((f) => f.result.ratioToLowerBound === result.ratioToLowerBound);
    if (same !== undefined) {
      if (!same.backends.includes(result.backend)) same.backends.push(result.backend);
    } else if (variants.some((f) => f.backends.includes(result.backend))) {
      throw new ExperimentError(
        `footprint chart: ${where} on ${result.backend} appears twice with different ratios to the lower bound (${variants[0].result.ratioToLowerBound} and ${result.ratioToLowerBound}); chart one experiment at a time.`,
      );
    } else {
      variants.push({ result, backends: [result.backend] });
    }
  }
  return [...cells.values()].flatMap((variants) =>
    variants.map(({ result, backends }) => {
      const planner = plannerLabel.get(result.planner)!;
      return {
        network: networkLabel.get(result.model)!,
        planner: variants.length === 1 ? planner : `${planner} (${backends.join(', ')})`,
        ratio: result.ratioToLowerBound,
        footprint: result.footprint,
      };
    }),
  );
}

/** Over this many times the bound on every network: left out of a chart, with a note, so that the others are not squashed. */
export const FAR_FROM_BOUND = 1.5;

/**
 * The planners whose every ratio is over `FAR_FROM_BOUND` (naive, equality), in order of
 * first appearance; none where that would leave nothing to draw.
 */
export function farPlanners(rows: readonly { planner: string; ratio: number }[]): string[] {
  const planners = firstSeen(rows.map((r) => r.planner));
  const far = planners.filter((p) => rows.every((r) => r.planner !== p || r.ratio > FAR_FROM_BOUND));
  return far.length === planners.length ? [] : far;
}

/** "Naive (3.99-7.97x)": a planner's range of ratios, for the note that says it is left out. */
export function ratioRange(planner: string, ratios: readonly number[]): string {
  const low = Math.min(...ratios).toFixed(2);
  const high = Math.max(...ratios).toFixed(2);
  return `${planner} (${low === high ? low : `${low}-${high}`}x)`;
}

/** Ratios above this are drawn on a log axis: the bars from 1.0 would span more than a decade. */
const LOG_ABOVE = 10;

/**
 * Grouped bars: for each network (in the order the results list them) one bar per planner
 * (same), rising from the lower bound (1.0, a dashed rule) to footprint / lower bound,
 * with a tick at its top (a planner at the bound is a tick on the rule). Planners
 * over 1.5x the bound on every network (naive, equality) are left out, named with their
 * ranges in the subtitle; the rest on a linear axis, or a log one where they still reach
 * past 10x. A two-column figure. Static: no tooltips, no interaction.
 */
export function footprintChartSpec(results: readonly CellResult[], options: { title: string }): VegaLiteSpec {
  const all = footprintBars(results);
  if (all.length === 0) throw new Error('footprint chart: there are no results to draw.');
  const far = farPlanners(all);
  const bars = all.filter((b) => !far.includes(b.planner));
  const networks = firstSeen(bars.map((b) => b.network));
  const planners = firstSeen(bars.map((b) => b.planner));
  const highest = Math.max(1, ...bars.map((b) => b.ratio));
  const log = highest > LOG_ABOVE;
  const top = log ? highest * 1.05 : ratioAxisEnd(highest);
  const subtitle = [
    'Bars rise from the lower bound (1.00, dashed); a planner at the bound is a tick on it.',
    ...(far.length > 0
      ? [
          `Left out, over ${FAR_FROM_BOUND}x the bound on every network (the table has them): ${far
            .map((p) =>
              ratioRange(
                p,
                all.filter((b) => b.planner === p).map((b) => b.ratio),
              ),
            )
            .join(', ')}.`,
        ]
      : []),
  ];
  const scale = log ? { type: 'log', domain: [1, top], nice: false } : { domain: [1, top], nice: false, zero: false };
  const axis = { title: `footprint / lower bound${log ? ' (log scale)' : ''}`, format: log ? '~g' : '.2f', values: log ? logTicks(1, top) : ratioTicks(top), grid: true };
  const x = {
    field: 'network',
    type: 'nominal',
    sort: networks,
    scale: { domain: networks, paddingInner: 0.2, paddingOuter: 0.1 },
    axis: { title: null, labelAngle: 0, ticks: false, domain: true, ...labelWrap(networks) },
  };
  const xOffset = { field: 'planner', type: 'nominal', sort: planners, scale: { domain: planners, paddingInner: 0.08 } };
  const color = {
    field: 'planner',
    type: 'nominal',
    sort: planners,
    scale: { domain: planners, scheme: plannerScheme(planners.length) },
    legend: { title: null, orient: 'bottom', direction: 'horizontal', columns: Math.min(planners.length, 3), symbolType: 'square', columnPadding: 12, ...labelWrap(planners) },
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, subtitle },
    data: { values: bars.map((b) => ({ ...b })) },
    width: { step: planners.length <= 4 ? 16 : planners.length <= 8 ? 12 : 8, for: 'offset' },
    height: 190,
    encoding: { y: { type: 'quantitative', scale, axis } },
    layer: [
      { mark: { type: 'bar' }, encoding: { x, xOffset, y: { field: 'ratio', type: 'quantitative' }, y2: { datum: 1 }, color } },
      { mark: { type: 'tick', thickness: 1.5, color: '#222' }, encoding: { x, xOffset, y: { field: 'ratio', type: 'quantitative' } } },
      { data: { values: [{ bound: 1 }] }, mark: { type: 'rule', color: '#333', strokeDash: [6, 4], strokeWidth: 1 }, encoding: { y: { field: 'bound', type: 'quantitative' } } },
    ],
    ...paperFigure('two-column', { view: { stroke: null } }),
  } as VegaLiteSpec;
}

/** A `labelExpr` that wraps the long ones of `labels`, where any is long. */
function labelWrap(labels: readonly string[]): { labelExpr?: string } {
  const expr = wrappedLabelExpr(labels);
  return expr ? { labelExpr: expr } : {};
}
