import { describe, expect, it } from 'vitest';
import { scalingChartSpec } from '../../../src/report/charts/scaling-chart.ts';
import { expectCompiles, rowsOf } from './spec-data.ts';

const POINTS = [
  { planner: 'offsets/greedy-by-size', records: 100, medianMs: 0.05, instance: 'a' },
  { planner: 'offsets/greedy-by-size', records: 1000, medianMs: 0.6, instance: 'b' },
  { planner: 'offsets/greedy-by-size', records: 10000, medianMs: 7, instance: 'c' },
  { planner: 'offsets/greedy-by-breadth', records: 100, medianMs: 0.1, instance: 'a' },
  { planner: 'offsets/greedy-by-breadth', records: 1000, medianMs: 2, instance: 'b' },
  { planner: 'offsets/greedy-by-breadth', records: 10000, medianMs: 40, instance: 'c' },
];

type Encoding = Record<string, { field?: string; scale?: { type?: string; domain?: unknown }; axis?: { values?: number[] } }>;

describe('scalingChartSpec', () => {
  const spec = scalingChartSpec(POINTS, { title: 'Scaling' });
  const encoding = (spec as unknown as { encoding: Encoding }).encoding;

  it('compiles with vega-lite without warnings', () => {
    expectCompiles(spec);
  });

  it('plots median time against records on log-log axes, one line with points per planner', () => {
    expect(rowsOf(spec).map((row) => [row.planner, row.records, row.medianMs])).toEqual(POINTS.map((p) => [p.planner, p.records, p.medianMs]));
    expect(encoding.x).toMatchObject({ field: 'records', scale: { type: 'log' } });
    expect(encoding.y).toMatchObject({ field: 'medianMs', scale: { type: 'log' } });
    expect(encoding.color.scale?.domain).toEqual(['offsets/greedy-by-size', 'offsets/greedy-by-breadth']);
    expect(encoding.shape.field).toBe('planner');
    expect((spec as unknown as { mark: unknown }).mark).toMatchObject({ type: 'line', point: { filled: true } });
  });

  it('leaves out points a log scale cannot show and says so', () => {
    const withZero = scalingChartSpec([...POINTS, { planner: 'x', records: 10, medianMs: 0, instance: 'tiny' }], { title: 'Scaling' });
    expect(rowsOf(withZero)).toHaveLength(POINTS.length);
    expect((withZero as unknown as { title: { subtitle: string } }).title.subtitle).toMatch(/^1 point at 0 ms/);
    expect(() => scalingChartSpec([{ planner: 'x', records: 10, medianMs: NaN, instance: 'bad' }], { title: 't' })).toThrow(/point 0/);
  });

  it('ticks the log axes at powers of ten over wide ranges', () => {
    expect(encoding.x.axis?.values).toEqual([100, 1000, 10000]);
  });

  it('is a one-column figure with its legend below the plot', () => {
    expect((spec as { usermeta?: unknown }).usermeta).toEqual({ figure: 'one-column' });
    expect(encoding.color).toMatchObject({ legend: { orient: 'bottom' } });
  });
});
