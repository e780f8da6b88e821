import { median } from 'simple-statistics';
import { summarizeLatency } from '../../backends/latency.ts';
import { formatByteSize } from '../../io/byte-size.ts';
import type { SchedulerKind } from '../../backends/gemm/schedule.ts';
import { peerMatMul, type PeerMatMul } from '../../measuring/gemm/peer-matmul.ts';
import { runGemm, type GemmReport } from '../../measuring/gemm/run-gemm.ts';
import { Progress } from '../progress.ts';
import type { ResultStore } from '../result-store.ts';
import { registerStudy, type Study } from '../study.ts';
import { gridCells, parseGemmTiling, type GemmGrid, type GemmStorage, type GemmTilingConfig } from './gemm-tiling-config.ts';

export type { GemmGrid, GemmStorage, GemmTilingConfig } from './gemm-tiling-config.ts';

/** The median of a cell's runs and its 95% interval (seeded percentile bootstrap, as latencies get). */
export interface MedianInterval {
  readonly median: number;
  readonly ci95: readonly [number, number];
  readonly runs: number;
}

/** One cell of the grid: a (storage, tile, budget, scheduler) run `repetitions` times, each in a process of its own. */
export interface GemmCell {
  /** The id of the storage it ran on (config.storage). */
  readonly storage: string;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
  readonly runs: readonly GemmReport[];
  readonly wallMs: MedianInterval;
  /** The measured process's peak RSS, absolute (the authors' figures are a whole process's). */
  readonly peakRss: MedianInterval;
  /** The peak over the process's own baseline: the GEMM's share. */
  readonly peakRssDelta: MedianInterval;
  /** Medians: time in the products, and waiting for I/O. */
  readonly computeMs: number;
  readonly stallMs: number;
}

/** The peer's line of a run (one per run, after the cells). */
export interface GemmPeerCell {
  readonly peer: PeerMatMul;
}

export function medianInterval(values: readonly number[], seed: number): MedianInterval {
  const summary = summarizeLatency(values, seed);
  return { median: summary.median, ci95: summary.ci95, runs: summary.runs };
}

interface Planned {
  readonly storage: GemmStorage;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
}

/**
 * The cells in the order they run: tile by tile (run-gemm keeps one tile size's inputs in
 * a folder, so a change of tile rewrites A and B: once per tile, not once per cell), then
 * storage, scheduler and budget.
 */
export function runOrder(grid: GemmGrid, storage: readonly GemmStorage[], schedulers: readonly SchedulerKind[]): Planned[] {
  const { feasible } = gridCells(grid);
  return grid.tiles.flatMap((tile) =>
    storage.flatMap((s) => schedulers.flatMap((scheduler) => feasible.filter((c) => c.tile === tile).map((c) => ({ storage: s, tile, budget: c.budget, scheduler })))),
  );
}

/**
 * The GEMM-tiling study (Jo, Lee and Shin, reproduced): the full grid of tile sizes and
 * budgets (every cell that can run) on each storage and scheduler, every run in a process of
 * its own; then onnxruntime's MatMul once. Figures 2 and 3 are the grid's row and column.
 */
export const gemmTilingStudy: Study<GemmTilingConfig, GemmCell | GemmPeerCell> = {
  kind: 'gemm-tiling',
  parse: parseGemmTiling,
  async run(config, store: ResultStore, options) {
    const grid = options.quick && config.quick ? config.quick : config;
    const plan = runOrder(grid, config.storage, config.schedulers);
    const progress = new Progress(plan.length * grid.repetitions + (config.peer ? 1 : 0), config.name, process.stderr, options.quiet);
    progress.start(store.dir);
    const cells: (GemmCell | GemmPeerCell)[] = [];
    for (const cell of plan) {
      const runs: GemmReport[] = [];
      for (let k = 0; k < grid.repetitions; k++) {
        const run = await runGemm({
          n: grid.n,
          tile: cell.tile,
          budget: cell.budget,
          scheduler: cell.scheduler,
          seed: grid.seed,
          ...(cell.storage.speeds ? { storage: cell.storage.speeds } : {}),
        });
        runs.push(run);
        progress.step(
          `${cell.storage.id} tile ${cell.tile} budget ${formatByteSize(cell.budget)} ${cell.scheduler}: ${(run.wallMs / 1000).toFixed(1)} s, peak +${(run.memory.peakRssDelta / 2 ** 20).toFixed(0)} MiB`,
        );
      }
      const result: GemmCell = {
        storage: cell.storage.id,
        tile: cell.tile,
        budget: cell.budget,
        scheduler: cell.scheduler,
        runs,
        wallMs: medianInterval(
          runs.map((r) => r.wallMs),
          grid.seed,
        ),
        peakRss: medianInterval(
          runs.map((r) => r.memory.peakRss),
          grid.seed,
        ),
        peakRssDelta: medianInterval(
          runs.map((r) => r.memory.peakRssDelta),
          grid.seed,
        ),
        computeMs: median(runs.map((r) => r.computeMs)),
        stallMs: median(runs.map((r) => r.stallMs)),
      };
      await store.append(result);
      cells.push(result);
    }
    if (config.peer) {
      const peer: GemmPeerCell = { peer: await peerMatMul(grid.n, grid.seed) };
      progress.step(`onnxruntime MatMul n=${grid.n}: ${peer.peer.gflops.toFixed(1)} GFLOP/s`);
      await store.append(peer);
      cells.push(peer);
    }
    return cells;
  },
};

registerStudy(gemmTilingStudy);
