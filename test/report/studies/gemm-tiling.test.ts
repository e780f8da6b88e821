import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GemmReport } from '../../../src/measuring/gemm/run-gemm.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { gemmTilingStudy, medianInterval, type GemmCell } from '../../../src/experiments/studies/gemm-tiling.ts';
import { gemmChartSpec } from '../../../src/report/charts/gemm-chart.ts';
import { reportStudy } from '../../../src/report/study-reports.ts';
import '../../../src/report/studies/index.ts';
import { expectCompiles } from '../charts/spec-data.ts';

const MiB = 2 ** 20;
const FILE = 'experiments/gemm-tiling.json';
const config = gemmTilingStudy.parse(JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>, FILE);
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A cell of five runs: wall times (s) and peaks over a 50 MiB baseline (MiB), one per run. */
function cell(storage: string, tile: number, budgetMiB: number, wallS: readonly number[], peakMiB: readonly number[], bytesRead = 128 * MiB): GemmCell {
  const runs = wallS.map(
    (wall, k) =>
      ({
        n: 4096,
        tile,
        budget: budgetMiB * MiB,
        scheduler: 'planned',
        policy: 'some policy',
        directIo: true,
        seed: 1,
        wallMs: wall * 1000,
        computeMs: 3300,
        stallMs: 100,
        io: { bytesRead, bytesWritten: 64 * MiB, tileLoads: 2, tileWrites: 1 },
        storage: { read: null, write: null, heldMs: null },
        tiles: { residentHighWater: Math.min(budgetMiB, 192) * MiB, arenaBytes: budgetMiB * MiB, tasks: 1 },
        gflops: { compute: 41, wall: 40 },
        memory: { baselineRss: 50 * MiB, peakRss: (50 + peakMiB[k]) * MiB, peakRssDelta: peakMiB[k] * MiB, method: 'test' },
        check: { kind: 'sampled', entries: 256, maxError: 1e-7, tolerance: 1e-4, within: true },
      }) as GemmReport,
  );
  const interval = (pick: (r: GemmReport) => number) => medianInterval(runs.map(pick), 1);
  return {
    storage,
    tile,
    budget: budgetMiB * MiB,
    scheduler: 'planned',
    runs,
    wallMs: interval((r) => r.wallMs),
    peakRss: interval((r) => r.memory.peakRss),
    peakRssDelta: interval((r) => r.memory.peakRssDelta),
    computeMs: 3300,
    stallMs: 100,
  };
}

const same = (v: number): number[] => [v, v, v, v, v];
const CELLS: GemmCell[] = [
  // This machine: tiled 20x less over the baseline, barely slower; tile 2048 apart and faster.
  cell('native', 4096, 256, [3.7, 3.75, 3.77, 3.8, 3.85], same(192)),
  cell('native', 2048, 256, [3.4, 3.45, 3.5, 3.52, 3.55], same(128)),
  cell('native', 512, 256, [3.6, 3.6, 3.6, 3.6, 3.6], same(74)),
  cell('native', 512, 4, [3.86, 3.87, 3.88, 3.89, 3.9], [9, 9.5, 9.6, 9.8, 10], 1024 * MiB),
  // The stated eMMC: the time cost straddles its threshold; tile 2048 overlaps untiled.
  cell('xu4-emmc', 4096, 256, [4.0, 4.1, 4.2, 4.3, 4.4], same(192)),
  cell('xu4-emmc', 2048, 256, [3.9, 4.0, 4.2, 4.4, 4.5], same(128)),
  cell('xu4-emmc', 512, 4, [7, 8, 9, 10, 11], same(10), 1024 * MiB),
];

async function report(cells: readonly object[], info: Record<string, unknown>) {
  const dir = await mkdtemp(join(tmpdir(), 'memplan-gemm-report-'));
  dirs.push(dir);
  const store = await ResultStore.create(dir, 'gemm-tiling', 'run');
  await store.writeRunInfo(info);
  for (const c of cells) await store.append(c);
  return { store, result: reportStudy(store.dir, 'gemm-tiling', info) };
}

describe('the gemm-tiling report', () => {
  it('decides each finding on intervals against a stated threshold: holds, does not hold, cannot tell', async () => {
    const info = { study: 'gemm-tiling', config, machine: { cpu: 'test cpu', cores: 2 } };
    const { result } = await report([...CELLS, { peer: { runtime: 'onnxruntime-node 1.30.0', n: 4096, medianMs: 1120, gflops: 122.7 } }], info);
    const { markdown, files } = await result;
    const row = (finding: string, storage: string): string => markdown.split('\n').find((l) => l.startsWith(`| ${finding} | ${storage} | planned |`)) ?? '';
    // Absolute peaks: (50 + 192) / (50 + 9.6): 4.06x, wholly under 8.67x.
    expect(row('less peak memory: peak RSS, untiled / smallest', "this machine's storage")).toContain('| 17.3x (399 / 23 MB) | 4.06x [4.03x, 4.10x] | ≥ 8.67x (0.5 of theirs) | **does not hold** |');
    expect(row('less peak memory: peak over the baseline, untiled / smallest', "this machine's storage")).toContain('| 20.0x [19.2x, 21.3x] | ≥ 8.67x (0.5 of theirs) | holds |');
    expect(row('more time: wall time, smallest / untiled', "this machine's storage")).toContain('| 4.1x (498 / 121 s) | 1.03x [1.00x, 1.05x] | ≥ 2.06x (0.5 of theirs) | **does not hold** |');
    expect(row('tile 2048 beats untiled: wall time, tile 2048 / untiled', "this machine's storage")).toContain('| < 1x | holds |');
    expect(row('more time: wall time, smallest / untiled', "the Odroid-XU4's eMMC, stated at 400 MB/s")).toContain(
      '| 2.14x [1.59x, 2.75x] | ≥ 2.06x (0.5 of theirs) | *inconclusive* | the interval straddles 2.06x |',
    );
    expect(row('tile 2048 beats untiled: wall time, tile 2048 / untiled', "the Odroid-XU4's eMMC, stated at 400 MB/s")).toContain('| *inconclusive* |');
    // The grid: every budget a column, a dash where a cell cannot run (or did not).
    expect(markdown).toContain('| 4096 | 3.77 s · +192.0 · 128.0 R | — | — | — | — | — | — |');
    expect(markdown).toMatch(/Cells that cannot run, since a budget must hold one step's three tiles: tile 4096 at 128 MiB, 64 MiB, .+ \(one step holds an A, a B and a C tile: 192 MiB\);/);
    // What the stated device can account for of their 377 s.
    expect(markdown).toContain("- the Odroid-XU4's eMMC, stated at 400 MB/s, planned: tile 512 at 4 MiB reads 1024.0 MiB and writes 64.0 MiB, 2.85 s of the device at its stated speed.");
    expect(markdown).toMatch(/ours\/peer 0\.3/);
    expect(files.some((f) => f.endsWith('gemm-figure2-native.png'))).toBe(true);
    expect(files.some((f) => f.endsWith('gemm-figure3-xu4-emmc.png'))).toBe(true);
  });

  it("refuses a run of the study's earlier format in one sentence", async () => {
    const old = { figure: 2, tile: 4096, budget: 256 * MiB, scheduler: 'planned', runs: [], wallMs: 1, computeMs: 1, stallMs: 0, peakRssDelta: 1 };
    const { store, result } = await report([old], { study: 'gemm-tiling', config: { name: 'gemm-tiling', title: 'GEMM' } });
    await expect(result).rejects.toThrow(
      `${store.dir}: this run was made by the study's earlier format (one sweep per figure, no storage, no intervals); run experiments/gemm-tiling.json again to report it.`,
    );
  });

  it('charts both figures of a storage as two panels with intervals that compile without warnings', () => {
    for (const figure of [2, 3] as const) expectCompiles(gemmChartSpec(CELLS, config, 'native', figure, { title: 't' }));
  });
});
