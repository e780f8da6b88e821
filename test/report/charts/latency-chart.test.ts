import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CellResult } from '../../../src/experiments/result.ts';
import { latencyChartSpec } from '../../../src/report/charts/latency-chart.ts';
import { missingChartFonts, renderChart } from '../../../src/report/charts/render.ts';
import { expectCompiles, rowsOf } from './spec-data.ts';

const MiB = 2 ** 20;

/** A measured cell: median latency, and onnxruntime's where given. */
function cell(network: string, planner: string, backend: string, mib: number, median: number, peer?: number): CellResult {
  return {
    experiment: 'latency',
    model: `zoo:${network}`,
    modelLabel: network,
    planner: `offsets/${planner}`,
    plannerTitle: planner,
    plannerApproach: 'offsets',
    backend,
    records: 10,
    operators: 10,
    footprint: mib * MiB,
    naive: 4 * mib * MiB,
    lowerBounds: { offsets: mib * MiB, sharedObjects: mib * MiB },
    ratioToLowerBound: 1,
    ratioToNaive: 0.25,
    valid: true,
    timeMs: { runs: 3, median: 1, min: 1, max: 1, mad: 0 },
    latencyMs: { runs: 20, median, min: median * 0.9, max: median * 1.1, p90: median * 1.05, ci95: [median * 0.98, median * 1.02] },
    device: { backend },
    ...(peer === undefined
      ? {}
      : { peer: { runtime: 'onnxruntime-node 1.30.0', latencyMs: { runs: 20, median: peer, min: peer, max: peer, p90: peer, ci95: [peer, peer] }, ratio: median / peer, relativeError: 1e-7 } }),
  } as CellResult;
}

// BlazeFace at 13 ms on the CPU and 12 s on a software GPU adapter; Inception v3 only on the CPU.
const RESULTS = [
  cell('BlazeFace', 'Naive', 'cpu', 9, 13, 2.8),
  cell('BlazeFace', 'Greedy by Size', 'cpu', 1.3, 13.4, 2.8),
  cell('BlazeFace', 'Naive', 'webgpu', 9, 12_000),
  cell('Inception v3', 'Naive', 'cpu', 55, 560, 141),
  cell('Inception v3', 'Greedy by Size', 'cpu', 8, 535, 141),
];

type Layer = {
  transform?: { filter: unknown }[];
  mark?: { type: string };
  layer?: Layer[];
  encoding?: Record<string, { field?: string; scale?: { type?: string }; axis?: { title?: string; values?: number[] } }>;
};
type Panel = { title: { text: string }; layer: Layer[] };

describe('latencyChartSpec', () => {
  const spec = latencyChartSpec(RESULTS, { title: 'Latency' });
  const panels = (spec as unknown as { concat: Panel[] }).concat;
  const medianLayer = (panel: Panel) => panel.layer.find((l) => l.mark?.type === 'point')!;

  it('compiles without warnings', () => {
    expectCompiles(spec);
  });

  it('draws a panel per network, each with its own network only and scales of its own', () => {
    expect(panels.map((p) => p.title.text)).toEqual(['BlazeFace', 'Inception v3']);
    for (const panel of panels) expect(medianLayer(panel).transform![0]).toEqual({ filter: { field: 'network', equal: panel.title.text } });
    expect((spec as unknown as { resolve: unknown }).resolve).toEqual({ scale: { x: 'independent', y: 'independent' } });
  });

  it('puts a panel whose latencies span more than a decade on a log axis, and says so; the others stay linear', () => {
    const [blazeFace, inception] = panels.map((p) => medianLayer(p).encoding!.y);
    expect(blazeFace.scale?.type).toBe('log');
    expect(blazeFace.axis?.title).toBe('median latency (ms, log)');
    expect(blazeFace.axis?.values).toEqual([10, 100, 1000, 10000]);
    expect(inception.scale?.type).toBeUndefined();
    expect(inception.axis?.title).toBe('median latency (ms)');
  });

  it("labels the peer runtime's line with its name and median", () => {
    const peers = rowsOf(spec).filter((row) => row.peer !== undefined);
    expect(peers).toEqual([
      { network: 'BlazeFace', peer: 2.8, runtime: 'onnxruntime-node 1.30.0', label: 'onnxruntime-node 2.8 ms' },
      { network: 'Inception v3', peer: 141, runtime: 'onnxruntime-node 1.30.0', label: 'onnxruntime-node 141 ms' },
    ]);
    const peerLayers = panels[0].layer.find((l) => l.layer !== undefined)!.layer!;
    expect(peerLayers.map((l) => l.mark?.type)).toEqual(['rule', 'text']);
    expect(peerLayers[1].encoding!.text.field).toBe('label');
    expect((spec as unknown as { title: { subtitle: string } }).title.subtitle).toContain('dashed: onnxruntime-node 1.30.0, the peer runtime');
  });

  it('refuses results without a latency', () => {
    const { latencyMs: _, ...unmeasured } = RESULTS[0];
    expect(() => latencyChartSpec([unmeasured as CellResult], { title: 't' })).toThrow(/no cell carries a latency/);
  });
});

const missing = await missingChartFonts();

describe.skipIf(missing.length > 0)('the rendered latency chart', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names every network and the peer runtime on its line', async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-latency-'));
    const paths = await renderChart(latencyChartSpec(RESULTS, { title: 'Latency' }), join(dir, 'latency'));
    const svg = await readFile(paths.svg, 'utf8');
    for (const text of ['BlazeFace', 'Inception v3', 'onnxruntime-node 2.8 ms', 'onnxruntime-node 141 ms', 'median latency (ms, log)']) expect(svg).toContain(`>${text}<`);
  });
});
