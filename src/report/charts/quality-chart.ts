import { geometricMean } from 'simple-statistics';
import type { Approach } from '../../core/plans.ts';
import type { CellResult } from '../../experiments/result.ts';
import { firstSeen, plannerScheme } from './footprint-chart.ts';
import { logTicks, RATIO_CAPS, ratioTicks } from './axis-values.ts';
import { FONT_PX, paperFigure } from './figure-sizes.ts';
import { SHAPES } from './scaling-chart.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** One planner on one instance: how long it planned and how close it came to the best bound. */
export interface QualityPoint {
  readonly instance: string;
  readonly planner: string;
  /** Median planning time (ms), raised to the floor where it was 0. */
  readonly timeMs: number;
  /** Footprint over the best proven lower bound of the instance (>= 1). */
  readonly ratio: number;
}

/** One planner's geometric means over the instances every planner planned. */
export interface QualityMean {
  readonly planner: string;
  readonly timeMs: number;
  readonly ratio: number;
}

export interface QualityData {
  readonly points: readonly QualityPoint[];
  readonly means: readonly QualityMean[];
  /** Planners (their labels) in the order the results list them. */
  readonly planners: readonly string[];
  /** Where a median of 0 ms is drawn (a log axis cannot show 0). */
  readonly floorMs: number;
  /** Points whose median was 0 ms, drawn at `floorMs`. */
  readonly atFloor: number;
  /** Instances the means run over (those every planner planned), and all instances. */
  readonly meanInstances: number;
  readonly instances: number;
  /** Per planner label that claims optimality (exact planners): instances proven optimal, of those it planned. */
  readonly proven: readonly { readonly planner: string; readonly optimal: number; readonly of: number }[];
}

export interface QualityChartOptions {
  readonly title: string;
  /**
   * The experiment's approach, which picks the lower bound of `lowerBounds`. Default:
   * offsets when any cell is an offsets planner's (a shared-objects planner in an offsets
   * table is laid out contiguously), else shared objects.
   */
  readonly approach?: Approach;
  /** The search planners' time limit (ms): drawn as a labelled vertical rule when given. */
  readonly timeLimitMs?: number;
}

/** 1 µs: below what the planners' timer reports for any real run. */
const DEFAULT_FLOOR_MS = 0.001;

/** Planner titles, or the ids where two planners share a title, so that no two merge. */
function plannerLabels(results: readonly CellResult[]): Map<string, string> {
  const titleOf = new Map<string, string>();
  for (const r of results) if (!titleOf.has(r.planner)) titleOf.set(r.planner, r.plannerTitle);
  const titles = [...titleOf.values()];
  for (const [id, title] of titleOf) if (titles.indexOf(title) !== titles.lastIndexOf(title)) titleOf.set(id, id);
  return titleOf;
}

/**
 * The best proven lower bound of each instance (keyed by `model`): the larger of the
 * approach's bound from `lowerBounds` and every bound an exact planner's search proved.
 * In an offsets table only offsets planners' bounds count: a shared-objects search
 * bounds the sum of objects, which an arena may undercut.
 */
export function bestBounds(results: readonly CellResult[], approach: Approach): Map<string, number> {
  const best = new Map<string, number>();
  for (const r of results) {
    const own = approach === 'offsets' ? r.lowerBounds.offsets : r.lowerBounds.sharedObjects;
    const proved = r.bound !== undefined && (approach === 'shared-objects' || r.plannerApproach === 'offsets') ? r.bound : 0;
    best.set(r.model, Math.max(best.get(r.model) ?? 0, own, proved));
  }
  return best;
}

/** The chart's points and markers; throws on a cell that cannot be drawn. */
export function qualityData(results: readonly CellResult[], approach?: Approach): QualityData {
  if (results.length === 0) throw new Error('quality chart: there are no results to draw.');
  const chosen = approach ?? (results.some((r) => r.plannerApproach === 'offsets') ? 'offsets' : 'shared-objects');
  const bounds = bestBounds(results, chosen);
  const labels = plannerLabels(results);
  const cells = new Map<string, CellResult>();
  for (const r of results) {
    const where = `${r.modelLabel} / ${r.planner}`;
    if (!Number.isFinite(r.timeMs.median) || r.timeMs.median < 0) {
      throw new Error(`quality chart: ${where} has a median time of ${r.timeMs.median} ms; it must be finite and >= 0.`);
    }
    const bound = bounds.get(r.model)!;
    if (!(bound > 0)) throw new Error(`quality chart: ${r.modelLabel} has no positive lower bound (an empty problem?); its ratios cannot be drawn.`);
    if (r.footprint < bound) {
      throw new Error(`quality chart: ${where} needs ${r.footprint} bytes, below the best proven lower bound ${bound}; a bound or a plan is wrong.`);
    }
    // Several backends plan the same cell: one point, the first.
    const key = JSON.stringify([r.model, r.planner]);
    if (!cells.has(key)) cells.set(key, r);
  }
  const kept = [...cells.values()];
  const positive = kept.map((r) => r.timeMs.median).filter((t) => t > 0);
  const floorMs = Math.min(DEFAULT_FLOOR_MS, ...positive);
  const points = kept.map(
    (r): QualityPoint => ({
      instance: r.modelLabel,
      planner: labels.get(r.planner)!,
      timeMs: r.timeMs.median > 0 ? r.timeMs.median : floorMs,
      ratio: r.footprint / bounds.get(r.model)!,
    }),
  );

  // Means over the instances every planner has, so that a planner that skipped the hard
  // ones does not look better for it.
  const plannerIds = firstSeen(kept.map((r) => r.planner));
  const instances = firstSeen(kept.map((r) => r.model));
  const common = new Set(instances.filter((m) => plannerIds.every((p) => cells.has(JSON.stringify([m, p])))));
  const means = plannerIds.flatMap((p): QualityMean[] => {
    const own = kept.map((r, k) => [r, points[k]] as const).filter(([r]) => r.planner === p && common.has(r.model));
    if (own.length === 0) return [];
    return [{ planner: labels.get(p)!, timeMs: geometricMean(own.map(([, q]) => q.timeMs)), ratio: geometricMean(own.map(([, q]) => q.ratio)) }];
  });
  const proven = plannerIds.flatMap((p) => {
    const claims = kept.filter((r) => r.planner === p && r.optimal !== undefined);
    return claims.length === 0 ? [] : [{ planner: labels.get(p)!, optimal: claims.filter((r) => r.optimal).length, of: claims.length }];
  });
  return {
    points,
    means,
    planners: plannerIds.map((p) => labels.get(p)!),
    floorMs,
    atFloor: kept.filter((r) => r.timeMs.median === 0).length,
    meanInstances: common.size,
    instances: instances.length,
    proven,
  };
}

/**
 * The top of the ratio axis. A few very poor plans (7x the bound) would squeeze every
 * good one (1.0 to 1.1) into the bottom rows, so the axis ends at the smallest cap that
 * holds every planner's mean and at least 90% of the points; the points above are drawn
 * on the top edge and counted. Where every point fits, the axis ends just above the last.
 */
export function ratioAxisTop(ratios: readonly number[], means: readonly number[]): { top: number; capped: boolean } {
  const highest = Math.max(...ratios);
  // At least a few percent of headroom, so that a run where everything is optimal still has an axis.
  const tight = Math.max(1.05, Math.ceil(highest * 50 - 1e-9) / 50);
  const meanTop = Math.max(1, ...means);
  const cap = RATIO_CAPS.find((c) => c >= meanTop && ratios.filter((r) => r <= c).length >= 0.9 * ratios.length);
  return cap === undefined || cap >= tight ? { top: tight, capped: false } : { top: cap, capped: true };
}

/** The subtitle, a line per thought, each about as wide as the plot. */
function subtitle(data: QualityData, timeLimitMs: number | undefined, above: number, top: number): string[] {
  const over = data.meanInstances === data.instances ? `all ${data.instances} instances` : `the ${data.meanInstances} of ${data.instances} instances every planner planned`;
  const searches = [...(timeLimitMs !== undefined ? [`Searches stop at ${formatMs(timeLimitMs)}.`] : []), ...data.proven.map((p) => `${p.planner} proved ${p.optimal} of ${p.of} optimal.`)];
  return [
    'One point per instance and planner; lower left is better.',
    `Large outlined markers: each planner's geometric means of time and ratio over ${over}.`,
    'Best proven lower bound: the larger of the max-breadth bound and any bound an exact search proved.',
    ...(searches.length > 0 ? [searches.join(' ')] : []),
    ...(above > 0 ? [`${above} point${above === 1 ? '' : 's'} above ${top} (up to ${Math.max(...data.points.map((p) => p.ratio)).toFixed(2)}) drawn on the top edge.`] : []),
    ...(data.atFloor > 0 ? [`${data.atFloor} point${data.atFloor === 1 ? '' : 's'} at 0 ms (below the timer's resolution) drawn at ${formatMs(data.floorMs)}.`] : []),
  ];
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : ms >= 1 ? `${ms} ms` : `${Number((ms * 1000).toPrecision(3))} µs`;
}

/**
 * Solution quality against planning time: one point per (instance, planner) at (median
 * planning time on a log axis, footprint over the instance's best proven lower bound on
 * a linear axis from 1), colour and shape per planner, and per planner a larger outlined
 * marker at its geometric means. Lower-left is better. A two-column figure. Static and
 * deterministic.
 */
export function qualityChartSpec(results: readonly CellResult[], options: QualityChartOptions): VegaLiteSpec {
  const data = qualityData(results, options.approach);
  const { planners } = data;
  const times = [...data.points.map((p) => p.timeMs), ...(options.timeLimitMs !== undefined ? [options.timeLimitMs] : [])];
  const xTicks = logTicks(Math.min(...times), Math.max(...times));
  const { top: yTop, capped } = ratioAxisTop(
    data.points.map((p) => p.ratio),
    data.means.map((m) => m.ratio),
  );
  const above = capped ? data.points.filter((p) => p.ratio > yTop).length : 0;
  const legend = { title: 'planner', orient: 'bottom', direction: 'horizontal', columns: 2, symbolSize: 70, columnPadding: 14 };
  const color = { field: 'planner', type: 'nominal', sort: planners, scale: { domain: planners, scheme: plannerScheme(planners.length) }, legend };
  const shape = { field: 'planner', type: 'nominal', sort: planners, scale: { domain: planners, range: planners.map((_, i) => SHAPES[i % SHAPES.length]) }, legend };
  const x = {
    field: 'timeMs',
    type: 'quantitative',
    scale: { type: 'log', nice: false, padding: 14 },
    axis: { title: 'planning time, median (ms, log scale)', format: ',~g', ...(xTicks.length >= 2 ? { values: xTicks } : {}), grid: true, gridColor: '#e4e4e4' },
  };
  const y = {
    field: 'drawnRatio',
    type: 'quantitative',
    scale: { domain: [1, yTop], nice: false, zero: false, padding: 8 },
    axis: {
      title: 'footprint / best proven lower bound',
      format: '.2f',
      values: ratioTicks(yTop),
      // The top edge holds every point above the cap too.
      ...(above > 0 ? { labelExpr: `datum.value >= ${yTop} ? '≥ ' + datum.label : datum.label` } : {}),
      grid: true,
      gridColor: '#e4e4e4',
    },
  };
  const layers: object[] = [];
  if (options.timeLimitMs !== undefined) {
    layers.push(
      { data: { values: [{ timeMs: options.timeLimitMs }] }, mark: { type: 'rule', color: '#666', strokeDash: [6, 4], strokeWidth: 1.25 }, encoding: { x: { field: 'timeMs', type: 'quantitative' } } },
      {
        data: { values: [{ timeMs: options.timeLimitMs, label: 'time limit' }] },
        mark: { type: 'text', angle: 270, align: 'right', baseline: 'bottom', dx: -4, dy: -4, fontSize: FONT_PX.text, color: '#555' },
        encoding: { x: { field: 'timeMs', type: 'quantitative' }, y: { value: 0 }, text: { field: 'label', type: 'nominal' } },
      },
    );
  }
  layers.push(
    {
      data: { values: data.points.map((p) => ({ ...p, drawnRatio: Math.min(p.ratio, yTop) })) },
      mark: { type: 'point', filled: true, size: 40, opacity: 0.7 },
      encoding: { x, y, color, shape },
    },
    {
      data: { values: data.means.map((m) => ({ ...m, drawnRatio: m.ratio })) },
      mark: { type: 'point', filled: false, size: 300, strokeWidth: 2.25, opacity: 1 },
      encoding: { x, y, color, shape },
    },
  );
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, subtitle: subtitle(data, options.timeLimitMs, above, yTop) },
    width: 560,
    height: 300,
    layer: layers,
    ...paperFigure('two-column', { view: { stroke: '#888' } }),
  } as VegaLiteSpec;
}
