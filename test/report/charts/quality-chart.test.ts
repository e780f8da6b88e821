import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantedSuite } from '../../../src/core/planted.ts';
import { loadExperiment, parseExperiment } from '../../../src/experiments/config.ts';
import type { CellResult } from '../../../src/experiments/result.ts';
import { bestBounds, qualityChartSpec, qualityData, ratioAxisTop } from '../../../src/report/charts/quality-chart.ts';
import { missingChartFonts, renderChart, renderSvg, withChartFont } from '../../../src/report/charts/render.ts';
import { expectCompiles } from './spec-data.ts';

interface CellOptions {
  readonly footprint: number;
  readonly ms: number;
  readonly offsetsBound?: number;
  readonly bound?: number;
  readonly optimal?: boolean;
  readonly approach?: CellResult['plannerApproach'];
}

function cell(model: string, planner: string, title: string, o: CellOptions): CellResult {
  const offsets = o.offsetsBound ?? 1000;
  return {
    experiment: 'test',
    model: `traces/${model}.csv`,
    modelLabel: model,
    planner,
    plannerTitle: title,
    plannerApproach: o.approach ?? 'offsets',
    backend: 'plan-only',
    records: 10,
    operators: 10,
    footprint: o.footprint,
    naive: 10_000,
    lowerBounds: { offsets, sharedObjects: offsets + 200 },
    ratioToLowerBound: o.footprint / offsets,
    ratioToNaive: o.footprint / 10_000,
    valid: true,
    timeMs: { runs: 1, median: o.ms, min: o.ms, max: o.ms, mad: 0 },
    ...(o.optimal !== undefined ? { optimal: o.optimal } : {}),
    ...(o.bound !== undefined ? { bound: o.bound } : {}),
  };
}

const GREEDY = ['offsets/greedy-by-size', 'Greedy by Size'] as const;
const EXACT = ['offsets/exact', 'Optimal (branch and bound)'] as const;

// Instance a: exact proves 1200 (above the breadth bound 1000) and reaches it.
// Instance b: exact stops at its limit with a bound 1100 below its plan 1150.
const RESULTS = [
  cell('a', ...GREEDY, { footprint: 1500, ms: 0.1 }),
  cell('a', ...EXACT, { footprint: 1200, ms: 40, bound: 1200, optimal: true }),
  cell('b', ...GREEDY, { footprint: 1210, ms: 0.4 }),
  cell('b', ...EXACT, { footprint: 1150, ms: 10_000, bound: 1100, optimal: false }),
];

type Layer = { mark: { type: string; filled?: boolean }; data: { values: Record<string, unknown>[] }; encoding: Record<string, { field?: string; scale?: { type?: string; domain?: unknown } }> };
const layersOf = (spec: unknown): Layer[] => (spec as { layer: Layer[] }).layer;
const subtitleOf = (spec: unknown): string => (spec as { title: { subtitle: string[] } }).title.subtitle.join(' ');

describe('qualityData', () => {
  it('divides by the best bound of the instance, whichever cell carries it', () => {
    const { points } = qualityData(RESULTS);
    expect(points.map((p) => [p.instance, p.planner, p.ratio])).toEqual([
      ['a', 'Greedy by Size', 1.25],
      ['a', 'Optimal (branch and bound)', 1],
      ['b', 'Greedy by Size', 1.1],
      ['b', 'Optimal (branch and bound)', 1150 / 1100],
    ]);
  });

  it("takes the approach's bound where it beats every search bound", () => {
    const results = [cell('c', ...GREEDY, { footprint: 2600, ms: 1, offsetsBound: 2000 }), cell('c', ...EXACT, { footprint: 2500, ms: 1, offsetsBound: 2000, bound: 1900, optimal: false })];
    expect(bestBounds(results, 'offsets').get('traces/c.csv')).toBe(2000);
    expect(bestBounds(results, 'shared-objects').get('traces/c.csv')).toBe(2200);
  });

  it("ignores a shared-objects search's bound in an offsets table (it bounds objects, not arenas)", () => {
    const results = [
      cell('d', ...GREEDY, { footprint: 1300, ms: 1 }),
      cell('d', 'shared-objects/exact', 'Optimal objects', { footprint: 1400, ms: 1, bound: 1400, optimal: true, approach: 'shared-objects' }),
    ];
    expect(bestBounds(results, 'offsets').get('traces/d.csv')).toBe(1000);
    expect(qualityData(results).points[0].ratio).toBe(1.3);
  });

  it('puts each planner at its geometric means of time and ratio', () => {
    const { means } = qualityData(RESULTS);
    expect(means).toHaveLength(2);
    expect(means[0].planner).toBe('Greedy by Size');
    expect(means[0].timeMs).toBeCloseTo(Math.sqrt(0.1 * 0.4), 12);
    expect(means[0].ratio).toBeCloseTo(Math.sqrt(1.25 * 1.1), 12);
    expect(means[1].timeMs).toBeCloseTo(Math.sqrt(40 * 10_000), 9);
    expect(means[1].ratio).toBeCloseTo(Math.sqrt(1150 / 1100), 12);
  });

  it('means run over the instances every planner planned, and counts proofs of optimality', () => {
    const data = qualityData([...RESULTS, cell('e', ...GREEDY, { footprint: 3000, ms: 2 })]);
    expect(data.meanInstances).toBe(2);
    expect(data.instances).toBe(3);
    expect(data.means[0].ratio).toBeCloseTo(Math.sqrt(1.25 * 1.1), 12);
    expect(data.proven).toEqual([{ planner: 'Optimal (branch and bound)', optimal: 1, of: 2 }]);
  });

  it('draws 0 ms at a floor below every measured time and counts those points', () => {
    const data = qualityData([...RESULTS, cell('b', 'offsets/path-cover', 'Path Cover', { footprint: 1210, ms: 0 })]);
    expect(data.floorMs).toBe(0.001);
    expect(data.atFloor).toBe(1);
    expect(data.points.at(-1)!.timeMs).toBe(0.001);
    const tiny = qualityData([cell('a', ...GREEDY, { footprint: 1000, ms: 0.0002 }), cell('b', ...GREEDY, { footprint: 1000, ms: 0 })]);
    expect(tiny.floorMs).toBe(0.0002);
    expect(tiny.means[0].timeMs).toBeCloseTo(0.0002, 12);
  });

  it('refuses what it cannot draw', () => {
    expect(() => qualityData([])).toThrow(/no results/);
    expect(() => qualityData([cell('a', ...GREEDY, { footprint: 900, ms: 1 })])).toThrow(/below the best proven lower bound/);
    expect(() => qualityData([cell('a', ...GREEDY, { footprint: 1000, ms: NaN })])).toThrow(/median time/);
  });
});

describe('qualityChartSpec', () => {
  const spec = qualityChartSpec(RESULTS, { title: 'Quality', approach: 'offsets', timeLimitMs: 10_000 });
  const layers = layersOf(spec);
  const points = layers.find((l) => l.mark.type === 'point' && l.mark.filled === true)!;
  const markers = layers.find((l) => l.mark.type === 'point' && l.mark.filled === false)!;

  it('compiles with vega-lite without warnings', () => {
    expectCompiles(spec);
    expectCompiles(qualityChartSpec(RESULTS, { title: 'No limit' }));
  });

  it('plots ratio on a linear axis from 1 against time on a log axis, colour and shape per planner', () => {
    expect(points.data.values).toHaveLength(4);
    expect(points.encoding.x).toMatchObject({ field: 'timeMs', scale: { type: 'log' } });
    expect(points.encoding.y).toMatchObject({ field: 'drawnRatio', scale: { domain: [1, 1.25] }, axis: { title: 'footprint / best proven lower bound' } });
    expect(points.data.values.map((p) => p.drawnRatio)).toEqual(points.data.values.map((p) => p.ratio));
    expect(points.encoding.color.scale?.domain).toEqual(['Greedy by Size', 'Optimal (branch and bound)']);
    expect(points.encoding.shape.field).toBe('planner');
    expect(markers.data.values.map((m) => m.planner)).toEqual(['Greedy by Size', 'Optimal (branch and bound)']);
    expect(markers.encoding.shape).toEqual(points.encoding.shape);
  });

  it('describes the markers, the proofs and the floor in the subtitle, and rules the time limit', () => {
    expect(subtitleOf(spec)).toContain('geometric means of time and ratio over all 2 instances');
    expect(subtitleOf(spec)).toContain('Optimal (branch and bound) proved 1 of 2 optimal');
    expect(subtitleOf(spec)).toContain('Searches stop at 10 s');
    expect(layers.find((l) => l.mark.type === 'rule')!.data.values).toEqual([{ timeMs: 10_000 }]);
    const zero = qualityChartSpec([...RESULTS, cell('b', 'offsets/path-cover', 'Path Cover', { footprint: 1210, ms: 0 })], { title: 'Q' });
    expect(subtitleOf(zero)).toContain("1 point at 0 ms (below the timer's resolution) drawn at 1 µs");
    expect(layersOf(zero).some((l) => l.mark.type === 'rule')).toBe(false);
  });

  it('ends the ratio axis at a cap above a few very poor plans, draws those on the top edge and says so', () => {
    // Ten instances: greedy at 1.2 on nine of them and 7.0 on one.
    const many = Array.from({ length: 10 }, (_, k) => cell(`i${k}`, ...GREEDY, { footprint: k === 0 ? 7000 : 1200, ms: 1 }));
    expect(ratioAxisTop([7, ...Array(9).fill(1.2)], [Math.pow(7 * 1.2 ** 9, 0.1)])).toEqual({ top: 1.5, capped: true });
    const capped = qualityChartSpec(many, { title: 'Capped' });
    expectCompiles(capped);
    const layer = layersOf(capped).find((l) => l.mark.filled === true)!;
    expect(layer.encoding.y.scale?.domain).toEqual([1, 1.5]);
    expect(layer.data.values[0]).toMatchObject({ ratio: 7, drawnRatio: 1.5 });
    expect(subtitleOf(capped)).toContain('1 point above 1.5 (up to 7.00) drawn on the top edge');
    expect(JSON.stringify(capped)).toContain("'≥ ' + datum.label");
    // Where every point fits under the cap, the axis ends just above the highest.
    expect(ratioAxisTop([1, 1.013], [1.006])).toEqual({ top: 1.05, capped: false });
    expect(ratioAxisTop([1, 1.31], [1.1])).toEqual({ top: 1.32, capped: false });
  });

  it('renders to the same SVG twice', async () => {
    const styled = withChartFont(spec);
    const first = await renderSvg(styled, { onWarning: (m) => expect.fail(m) });
    expect(first.startsWith('<svg')).toBe(true);
    expect(first).toContain('footprint / best proven lower bound');
    expect(await renderSvg(withChartFont(qualityChartSpec(RESULTS, { title: 'Quality', approach: 'offsets', timeLimitMs: 10_000 })))).toBe(first);
  });
});

const missing = await missingChartFonts();

describe('renderChart of the quality chart', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-quality-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(missing.length > 0)('writes byte-identical SVG, PNG and PDF files on a second render', async () => {
    const spec = qualityChartSpec(RESULTS, { title: 'Quality', timeLimitMs: 10_000 });
    const first = await renderChart(spec, join(dir, 'one'));
    const second = await renderChart(spec, join(dir, 'two'));
    expect(await readFile(second.svg)).toEqual(await readFile(first.svg));
    expect(await readFile(second.png)).toEqual(await readFile(first.png));
    expect(await readFile(second.pdf)).toEqual(await readFile(first.pdf));
  });
});

describe("the experiment file's quality chart", () => {
  it("accepts 'quality' among the report's charts", () => {
    const text = JSON.stringify({ name: 'q', approach: 'offsets', models: ['zoo:blazeface'], planners: ['offsets/greedy-by-size'], report: { charts: ['quality', 'footprint'] } });
    expect(parseExperiment(text, 'experiments/q.json').report.charts).toEqual(['quality', 'footprint']);
    expect(() => parseExperiment(text.replace('"quality"', '"qualty"'), 'experiments/q.json')).toThrow(/charts\[0\]: must be one of .*quality/);
  });

  it('ships experiments/quality-vs-time.json: every trace optional, and the planted suite generated on the fly', async () => {
    const experiment = await loadExperiment('experiments/quality-vs-time.json');
    expect(experiment.report.charts).toEqual(['quality']);
    expect(experiment.timeLimitSeconds).toBe(10);
    const planted = experiment.models.filter((m) => m.source.startsWith('synthetic:planted'));
    const traces = experiment.models.filter((m) => !m.source.startsWith('synthetic:'));
    expect(traces).toHaveLength(26);
    expect(traces.every((m) => m.optional)).toBe(true);
    expect(planted.map((m) => m.source)).toEqual(plantedSuite().map((p) => p.source));
    expect(experiment.models).toHaveLength(traces.length + planted.length);
    expect(experiment.planners.map((p) => p.ref)).toContain('offsets/exact');
  });
});
