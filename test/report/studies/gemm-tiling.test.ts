import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GemmReport } from '../../../src/measuring/gemm/run-gemm.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import type { GemmCell } from '../../../src/experiments/studies/gemm-tiling.ts';
import { gemmChartSpec } from '../../../src/report/charts/gemm-chart.ts';
import { reportStudy } from '../../../src/report/study-reports.ts';
import '../../../src/report/studies/index.ts';
import { expectCompiles } from '../charts/spec-data.ts';

const MiB = 2 ** 20;
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function cell(figure: 2 | 3, tile: number, budgetMiB: number, scheduler: 'dynamic' | 'planned', wallS: number, peakMiB: number): GemmCell {
  const run = {
    n: 4096,
    tile,
    budget: budgetMiB * MiB,
    scheduler,
    policy: 'some policy',
    directIo: true,
    seed: 1,
    wallMs: wallS * 1000,
    computeMs: 3300,
    stallMs: (wallS - 3.3) * 1000,
    io: { bytesRead: 128 * MiB, bytesWritten: 64 * MiB, tileLoads: 2, tileWrites: 1 },
    tiles: { residentHighWater: Math.min(budgetMiB, 192) * MiB, arenaBytes: budgetMiB * MiB, tasks: 1 },
    gflops: { compute: 41, wall: 40 },
    memory: { baselineRss: 50 * MiB, peakRss: (50 + peakMiB) * MiB, peakRssDelta: peakMiB * MiB, method: 'test' },
    check: { kind: 'sampled', entries: 256, maxError: 1e-7, tolerance: 1e-4, within: true },
  } as GemmReport;
  return { figure, tile, budget: budgetMiB * MiB, scheduler, runs: [run], wallMs: wallS * 1000, computeMs: 3300, stallMs: (wallS - 3.3) * 1000, peakRssDelta: peakMiB * MiB };
}

const CELLS: GemmCell[] = [cell(2, 4096, 256, 'planned', 3.5, 192), cell(2, 2048, 256, 'planned', 3.4, 128), cell(3, 512, 256, 'planned', 3.6, 60), cell(3, 512, 4, 'planned', 3.9, 12)];

describe('the gemm-tiling report', () => {
  it("sets ours beside the authors' figures, as ratios, and says which findings hold", async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-gemm-report-'));
    const store = await ResultStore.create(dir, 'gemm-tiling', 'run');
    const config = { name: 'gemm-tiling', title: 'GEMM', published: { untiled: { peakMB: 399, seconds: 121 }, smallest: { tile: 512, budgetMB: 4, peakMB: 23, seconds: 498 } } };
    await store.writeRunInfo({ study: 'gemm-tiling', config, machine: { cpu: 'test cpu', cores: 2 } });
    for (const c of CELLS) await store.append(c);
    await store.append({ peer: { runtime: 'onnxruntime-node 1.30.0', n: 4096, medianMs: 1120, gflops: 122.7 } });
    const { markdown, files } = await reportStudy(store.dir, 'gemm-tiling', { study: 'gemm-tiling', config, machine: { cpu: 'test cpu', cores: 2 } });
    expect(markdown).toContain('| theirs: tile 512, budget 4 MB | 23 | 498 | 17.3x | 4.1x |');
    expect(markdown).toContain('| ours, planned: tile 512, budget 4.0 MiB | 12.0 | 3.90 | 16.0x | 1.11x |');
    expect(markdown).toMatch(/planned: 16\.0x less peak for 1\.11x the time \(theirs: 17\.3x for 4\.1x\): the memory finding holds/);
    expect(markdown).toMatch(/tile 2048 is faster than untiled .* holds here/);
    expect(markdown).toMatch(/ours\/peer 0\.3/);
    expect(files.some((f) => f.endsWith('gemm-figure2.png'))).toBe(true);
  });

  it('charts both figures as two panels that compile without warnings', () => {
    for (const figure of [2, 3] as const) expectCompiles(gemmChartSpec(CELLS, figure, { title: 't' }));
  });
});
