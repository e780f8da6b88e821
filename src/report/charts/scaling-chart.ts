import { logAxisValues } from './axis-values.ts';
import { firstSeen, plannerScheme } from './footprint-chart.ts';
import { paperFigure, wrappedLabelExpr } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** One measured planner run: its median planning time on a problem of `records` records. */
export interface ScalingPoint {
  readonly planner: string;
  readonly records: number;
  readonly medianMs: number;
  readonly instance: string;
}

/** Filled shapes that print apart in black and white, one per planner (repeating). */
export const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'triangle-left', 'triangle-right', 'wedge', 'arrow'];

/**
 * Log-log planning time (median ms) against problem size (records): one line with
 * points per planner, in the order the points list the planners. Colour and shape
 * both tell the planners apart. A log scale cannot show 0: points with a median of
 * 0 ms (below the timer's resolution) or with no records are left out, and the
 * subtitle says how many. A one-column figure.
 */
export function scalingChartSpec(points: readonly ScalingPoint[], options: { title: string }): VegaLiteSpec {
  points.forEach((point, i) => {
    if (!Number.isFinite(point.records) || !Number.isFinite(point.medianMs) || point.medianMs < 0 || point.records < 0) {
      throw new Error(`scaling chart: point ${i} (${point.planner} on ${point.instance}) has records ${point.records} and median ${point.medianMs} ms; both must be finite and >= 0.`);
    }
  });
  const drawn = points.filter((point) => point.records > 0 && point.medianMs > 0);
  if (drawn.length === 0) throw new Error('scaling chart: there are no points with records > 0 and a median above 0 ms to draw.');
  const planners = firstSeen(drawn.map((point) => point.planner));
  const left = points.length - drawn.length;
  const recordCounts = drawn.map((point) => point.records);
  const medians = drawn.map((point) => point.medianMs);
  const labelExpr = wrappedLabelExpr(planners);
  const legend = { title: 'planner', orient: 'bottom', direction: 'vertical', symbolSize: 50, ...(labelExpr ? { labelExpr } : {}) };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      ...(left > 0 ? { subtitle: `${left} point${left === 1 ? '' : 's'} at 0 ms (below the timer's resolution) not shown` } : {}),
    },
    width: 240,
    height: 220,
    data: { values: drawn.map((point) => ({ planner: point.planner, records: point.records, medianMs: point.medianMs, instance: point.instance })) },
    mark: { type: 'line', point: { filled: true, size: 40 }, strokeWidth: 1.5 },
    encoding: {
      x: {
        field: 'records',
        type: 'quantitative',
        scale: { type: 'log', nice: false, padding: 14 },
        axis: {
          title: 'problem size (records)',
          format: '~s',
          ...logAxisValues(recordCounts),
          grid: true,
          gridColor: '#e4e4e4',
        },
      },
      y: {
        field: 'medianMs',
        type: 'quantitative',
        scale: { type: 'log', nice: false, padding: 14 },
        axis: {
          title: 'planning time, median (ms)',
          format: ',~g',
          ...logAxisValues(medians),
          grid: true,
          gridColor: '#e4e4e4',
        },
      },
      color: {
        field: 'planner',
        type: 'nominal',
        sort: planners,
        scale: { domain: planners, scheme: plannerScheme(planners.length) },
        legend,
      },
      shape: {
        field: 'planner',
        type: 'nominal',
        sort: planners,
        scale: { domain: planners, range: planners.map((_, i) => SHAPES[i % SHAPES.length]) },
        legend,
      },
      order: { field: 'records', type: 'quantitative' },
    },
    ...paperFigure('one-column', { view: { stroke: '#888' } }),
  } as VegaLiteSpec;
}
