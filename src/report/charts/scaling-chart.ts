import { firstSeen, plannerScheme } from './footprint-chart.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

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
 * Axis values for a log scale over the data's [min, max]: powers of ten, with 2 and 5
 * times them where the data spans less than two decades, every multiple where it spans
 * less than one (vega's own log ticks label every power and grid every multiple, which
 * crowds the picture). Only values inside [min, max], which the padded scale shows.
 */
export function logTicks(min: number, max: number): number[] {
  const span = Math.log10(max / min);
  const multiples = span >= 2 ? [1] : span >= 0.7 ? [1, 2, 5] : [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const ticks: number[] = [];
  for (let exponent = Math.floor(Math.log10(min)); exponent <= Math.ceil(Math.log10(max)); exponent++) {
    for (const multiple of multiples) {
      // Through a string, so that 0.1 * 3 style noise never reaches a label.
      const value = Number(`${multiple}e${exponent}`);
      if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9)) ticks.push(value);
    }
  }
  return ticks;
}

/** Explicit axis values where there are at least two, else vega's own. */
function logAxisValues(values: readonly number[]): { values?: number[] } {
  const ticks = logTicks(Math.min(...values), Math.max(...values));
  return ticks.length >= 2 ? { values: ticks } : {};
}

/**
 * Log-log planning time (median ms) against problem size (records): one line with
 * points per planner, in the order the points list the planners. Colour and shape
 * both tell the planners apart. A log scale cannot show 0: points with a median of
 * 0 ms (below the timer's resolution) or with no records are left out, and the
 * subtitle says how many.
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
  const legend = { title: 'planner', labelFontSize: 12, titleFontSize: 12, labelLimit: 260, symbolSize: 80 };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      ...(left > 0 ? { subtitle: `${left} point${left === 1 ? '' : 's'} at 0 ms (below the timer's resolution) not shown` } : {}),
      fontSize: 15,
      anchor: 'start',
      offset: 10,
    },
    width: 520,
    height: 360,
    data: { values: drawn.map((point) => ({ planner: point.planner, records: point.records, medianMs: point.medianMs, instance: point.instance })) },
    mark: { type: 'line', point: { filled: true, size: 60 }, strokeWidth: 1.75 },
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
    config: { axis: { labelFontSize: 11, titleFontSize: 12 }, view: { stroke: '#888' } },
  } as VegaLiteSpec;
}
