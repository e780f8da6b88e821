import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../../src/experiments/result.ts';
import { farPlanners, footprintBars, footprintChartSpec } from '../../../src/report/charts/footprint-chart.ts';
import { expectCompiles, rowsOf } from './spec-data.ts';

function cell(model: string, modelLabel: string, planner: string, plannerTitle: string, ratio: number, backend = 'cpu'): CellResult {
  return {
    experiment: 'test',
    model,
    modelLabel,
    planner,
    plannerTitle,
    plannerApproach: 'offsets',
    backend,
    records: 10,
    operators: 10,
    footprint: ratio * 1000,
    naive: 5000,
    lowerBounds: { offsets: 1000, sharedObjects: 1200 } as CellResult['lowerBounds'],
    ratioToLowerBound: ratio,
    ratioToNaive: (ratio * 1000) / 5000,
    valid: true,
    timeMs: { runs: 3, median: 1, min: 1, max: 1, mad: 0 },
  };
}

// Networks and planners deliberately out of alphabetical order: the chart keeps the results' order.
const RESULTS = [
  cell('zoo:mobilenet-v2', 'MobileNet v2', 'offsets/greedy-by-size', 'Greedy by Size', 1.0),
  cell('zoo:mobilenet-v2', 'MobileNet v2', 'offsets/naive', 'Naive', 4.5),
  cell('zoo:mobilenet-v2', 'MobileNet v2', 'offsets/greedy-by-breadth', 'Greedy by Breadth', 1.25),
  cell('zoo:blazeface', 'BlazeFace', 'offsets/greedy-by-size', 'Greedy by Size', 1.1),
  cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 3.0),
  cell('zoo:blazeface', 'BlazeFace', 'offsets/greedy-by-breadth', 'Greedy by Breadth', 1.05),
];

type Encoded = { field?: string; sort?: unknown; datum?: unknown; scale?: { domain?: unknown; scheme?: string; type?: string }; axis?: { values?: number[]; title?: string } };
type Layer = { mark: { type: string } | string; data?: { values: Record<string, unknown>[] }; encoding: Record<string, Encoded> };

describe('footprintChartSpec', () => {
  const spec = footprintChartSpec(RESULTS, { title: 'Footprints' });
  const layers = (spec as unknown as { layer: Layer[] }).layer;
  const y = (spec as unknown as { encoding: { y: Encoded } }).encoding.y;
  const subtitle = (spec as unknown as { title: { subtitle: string[] } }).title.subtitle;

  it('compiles with vega-lite without warnings', () => {
    expectCompiles(spec);
  });

  it('holds one bar per network and planner with its ratio to the lower bound, leaving out planners far above it everywhere', () => {
    expect(rowsOf(spec).map((row) => [row.network, row.planner, row.ratio])).toEqual([
      ['MobileNet v2', 'Greedy by Size', 1.0],
      ['MobileNet v2', 'Greedy by Breadth', 1.25],
      ['BlazeFace', 'Greedy by Size', 1.1],
      ['BlazeFace', 'Greedy by Breadth', 1.05],
    ]);
    expect(subtitle).toContain('Left out, over 1.5x the bound on every network (the table has them): Naive (3.00-4.50x).');
  });

  it('groups by network and colours by planner, both in the order of the results', () => {
    const bars = layers[0];
    expect(bars.mark).toMatchObject({ type: 'bar' });
    expect(bars.encoding.x.field).toBe('network');
    expect(bars.encoding.x.scale?.domain).toEqual(['MobileNet v2', 'BlazeFace']);
    expect(bars.encoding.xOffset.field).toBe('planner');
    expect(bars.encoding.xOffset.scale?.domain).toEqual(['Greedy by Size', 'Greedy by Breadth']);
    expect(bars.encoding.color.scale).toMatchObject({ domain: ['Greedy by Size', 'Greedy by Breadth'], scheme: 'tableau10' });
    expect(bars.encoding.y.field).toBe('ratio');
    expect(JSON.stringify(spec)).not.toContain('tooltip');
  });

  it('raises the bars from the lower bound, a dashed rule at 1.0, on a linear axis ending at a tick', () => {
    expect(layers[0].encoding.y2).toEqual({ datum: 1 });
    const rule = layers.find((layer) => (layer.mark as { type: string }).type === 'rule')!;
    expect(rule.data?.values).toEqual([{ bound: 1 }]);
    expect(y.axis?.title).toBe('footprint / lower bound');
    expect(y.scale).toMatchObject({ domain: [1, 1.25] });
    expect(y.scale?.type).toBeUndefined();
    expect(y.axis?.values).toEqual([1, 1.05, 1.1, 1.15, 1.2, 1.25]);
  });

  it('draws on a log axis, and says so, where the planners it keeps still reach past 10x', () => {
    const wide = footprintChartSpec([...RESULTS, cell('zoo:blazeface', 'BlazeFace', 'offsets/odd', 'Odd', 12), cell('zoo:mobilenet-v2', 'MobileNet v2', 'offsets/odd', 'Odd', 1.2)], { title: 'Wide' });
    expectCompiles(wide);
    const wideY = (wide as unknown as { encoding: { y: Encoded } }).encoding.y;
    expect(wideY.scale).toMatchObject({ type: 'log' });
    expect(wideY.axis?.title).toBe('footprint / lower bound (log scale)');
    expect(wideY.axis?.values).toEqual([1, 2, 5, 10]);
  });

  it('keeps every planner where every one is far above the bound', () => {
    const naiveOnly = RESULTS.filter((r) => r.planner === 'offsets/naive');
    expect(farPlanners(footprintBars(naiveOnly))).toEqual([]);
    expect(rowsOf(footprintChartSpec(naiveOnly, { title: 'n' }))).toHaveLength(2);
  });

  it('draws one bar for a cell that several backends ran, whatever each executed; a bar per backend where the ratios differ; refuses one backend twice at two ratios', () => {
    const twice = [...RESULTS, cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 3.0, 'webgpu')];
    expect(footprintBars(twice)).toHaveLength(6);
    // Measured cells carry the footprint of the plan each backend ran on its own records (the CPU's with its kernels' scratch): one plan, one bar (latency-browser's run of 2026-11-29).
    const executed = [...RESULTS, { ...cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 3.0, 'webgpu'), footprint: 7_404_544 }];
    expect(footprintBars(executed)).toHaveLength(6);
    const apart = [...RESULTS, cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 2.0, 'webgpu'), cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 2.0, 'browser')];
    const bars = footprintBars(apart).filter((bar) => bar.network === 'BlazeFace' && bar.planner.startsWith('Naive'));
    expect(bars.map((bar) => [bar.planner, bar.ratio])).toEqual([
      ['Naive (cpu)', 3],
      ['Naive (webgpu, browser)', 2],
    ]);
    expectCompiles(footprintChartSpec(apart, { title: 'Backends apart' }));
    const disagreeing = [...RESULTS, cell('zoo:blazeface', 'BlazeFace', 'offsets/naive', 'Naive', 2.0)];
    expect(() => footprintBars(disagreeing)).toThrow(/zoo:blazeface \/ offsets\/naive on cpu appears twice with different ratios/);
  });

  it('keeps networks apart that share a label, and refuses an infinite ratio and no results', () => {
    const bars = footprintBars([cell('a.csv', 'trace', 'offsets/naive', 'Naive', 2), cell('b.csv', 'trace', 'offsets/naive', 'Naive', 3)]);
    expect(bars.map((bar) => bar.network)).toEqual(['a.csv', 'b.csv']);
    expect(() => footprintChartSpec([cell('a.csv', 'trace', 'offsets/naive', 'Naive', Infinity)], { title: 't' })).toThrow(/Infinity/);
    expect(() => footprintChartSpec([], { title: 't' })).toThrow(/no results/);
  });
});
