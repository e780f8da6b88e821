import { median } from 'simple-statistics';
import { peerMatMul, type PeerMatMul } from '../../measuring/gemm/peer-matmul.ts';
import { runGemm, type GemmReport } from '../../measuring/gemm/run-gemm.ts';
import { gemmShape, type GemmShape } from '../../backends/gemm/gemm-shape.ts';
import { budgetProblem, type SchedulerKind } from '../../backends/gemm/schedule.ts';
import { JsonFields } from '../json-fields.ts';
import { Progress } from '../progress.ts';
import type { ResultStore } from '../result-store.ts';
import { registerStudy, type Study, type StudyConfig } from '../study.ts';

/** The sweep of one figure: tiles at a budget (Figure 2), or budgets at a tile (Figure 3). */
export interface GemmSweep {
  readonly tiles: readonly number[];
  readonly budgets: readonly number[];
}

export interface GemmTilingConfig extends StudyConfig {
  readonly n: number;
  readonly seed: number;
  readonly schedulers: readonly SchedulerKind[];
  /** Runs per cell (each its own process); the report gives medians. */
  readonly repetitions: number;
  readonly figure2: GemmSweep;
  readonly figure3: GemmSweep;
  /** Time onnxruntime's MatMul on the same n, once. */
  readonly peer: boolean;
  /** The smaller variant (`--quick`). */
  readonly quick?: Omit<GemmTilingConfig, 'name' | 'title' | 'quick' | 'published' | 'schedulers' | 'peer'>;
  /** The authors' figures (Odroid-XU4, ArmCL), carried as published. */
  readonly published: {
    readonly untiled: { readonly peakMB: number; readonly seconds: number };
    readonly smallest: { readonly tile: number; readonly budgetMB: number; readonly peakMB: number; readonly seconds: number };
  };
}

/** One cell: a (figure, tile, budget, scheduler) run `repetitions` times. */
export interface GemmCell {
  readonly figure: 2 | 3;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
  readonly runs: readonly GemmReport[];
  /** Medians over the runs. */
  readonly wallMs: number;
  readonly computeMs: number;
  readonly stallMs: number;
  readonly peakRssDelta: number;
}

/** The peer's line of a run (one per run, after the cells). */
export interface GemmPeerCell {
  readonly peer: PeerMatMul;
}

const SCHEDULERS: readonly SchedulerKind[] = ['dynamic', 'planned'];

function parse(data: Record<string, unknown>, file: string): GemmTilingConfig {
  const j = new JsonFields(file);
  j.only(data, ['$comment', 'study', 'name', 'title', 'n', 'seed', 'schedulers', 'repetitions', 'figure2', 'figure3', 'peer', 'quick', 'published'], '$');
  const sweep = (value: unknown, path: string): GemmSweep => {
    const o = j.object(value, path);
    j.only(o, ['tiles', 'tile', 'budgets', 'budget'], path);
    const tiles = o.tiles !== undefined ? j.array(o.tiles, `${path}.tiles`).map((t, k) => j.integer(t, `${path}.tiles[${k}]`, 32)) : [j.integer(o.tile, `${path}.tile`, 32)];
    const budgets = o.budgets !== undefined ? j.array(o.budgets, `${path}.budgets`).map((b, k) => j.bytes(b, `${path}.budgets[${k}]`)) : [j.bytes(o.budget, `${path}.budget`)];
    return { tiles, budgets };
  };
  /** Every (tile, budget) a figure runs must be a GEMM that can run: refused here, not cells into the run. */
  const runnable = (n: number, figure: GemmSweep, path: string, across: 'tiles' | 'budgets'): GemmSweep => {
    figure.tiles.forEach((tile, k) => {
      const at = across === 'tiles' ? `${path}.tiles[${k}]` : `${path}.tile`;
      let shape: GemmShape;
      try {
        shape = gemmShape(n, tile);
      } catch (error) {
        return j.fail(at, (error as Error).message);
      }
      figure.budgets.forEach((budget, b) => {
        const problem = budgetProblem(shape, budget);
        if (problem !== undefined) j.fail(across === 'budgets' ? `${path}.budgets[${b}]` : `${path}.budget`, problem);
      });
    });
    return figure;
  };
  const sizes = (o: Record<string, unknown>, path: string) => {
    const n = j.integer(o.n, `${path}.n`, 32);
    return {
      n,
      seed: j.integer(o.seed ?? 1, `${path}.seed`),
      repetitions: j.integer(o.repetitions ?? 1, `${path}.repetitions`, 1),
      figure2: runnable(n, sweep(o.figure2, `${path}.figure2`), `${path}.figure2`, 'tiles'),
      figure3: runnable(n, sweep(o.figure3, `${path}.figure3`), `${path}.figure3`, 'budgets'),
    };
  };
  const quick = data.quick === undefined ? undefined : sizes(j.object(data.quick, '$.quick'), '$.quick');
  const published = j.object(data.published, '$.published');
  const untiled = j.object(published.untiled, '$.published.untiled');
  const smallest = j.object(published.smallest, '$.published.smallest');
  return {
    name: j.name(data.name, '$.name'),
    title: j.string(data.title, '$.title'),
    ...sizes(data, '$'),
    schedulers: j.array(data.schedulers ?? SCHEDULERS, '$.schedulers').map((s, k) => j.choice(s, `$.schedulers[${k}]`, SCHEDULERS)),
    peer: data.peer === undefined ? true : j.boolean(data.peer, '$.peer'),
    ...(quick ? { quick } : {}),
    published: {
      untiled: { peakMB: Number(untiled.peakMB), seconds: Number(untiled.seconds) },
      smallest: { tile: Number(smallest.tile), budgetMB: Number(smallest.budgetMB), peakMB: Number(smallest.peakMB), seconds: Number(smallest.seconds) },
    },
  };
}

/**
 * The GEMM-tiling study (Jo, Lee and Shin, reproduced): Figure 2 (tile sizes at one budget;
 * the tile equal to n is the untiled GEMM) and Figure 3 (budgets at one tile size), for
 * each scheduler, every run in a process of its own; then onnxruntime's MatMul once.
 */
export const gemmTilingStudy: Study<GemmTilingConfig, GemmCell | GemmPeerCell> = {
  kind: 'gemm-tiling',
  parse,
  async run(config, store: ResultStore, options) {
    const sizes = options.quick && config.quick ? config.quick : config;
    const plan: { figure: 2 | 3; tile: number; budget: number; scheduler: SchedulerKind }[] = [];
    for (const scheduler of config.schedulers) {
      for (const tile of sizes.figure2.tiles) plan.push({ figure: 2, tile, budget: sizes.figure2.budgets[0], scheduler });
      for (const budget of sizes.figure3.budgets) plan.push({ figure: 3, tile: sizes.figure3.tiles[0], budget, scheduler });
    }
    const progress = new Progress(plan.length * sizes.repetitions + (config.peer ? 1 : 0), config.name, process.stderr, options.quiet);
    progress.start(store.dir);
    const cells: (GemmCell | GemmPeerCell)[] = [];
    for (const cell of plan) {
      const runs: GemmReport[] = [];
      for (let k = 0; k < sizes.repetitions; k++) {
        runs.push(await runGemm({ n: sizes.n, tile: cell.tile, budget: cell.budget, scheduler: cell.scheduler, seed: sizes.seed }));
        const last = runs[runs.length - 1];
        progress.step(
          `figure ${cell.figure} tile ${cell.tile} budget ${cell.budget / 2 ** 20} MiB ${cell.scheduler}: ${(last.wallMs / 1000).toFixed(1)} s, peak +${(last.memory.peakRssDelta / 2 ** 20).toFixed(0)} MiB`,
        );
      }
      const mid = (pick: (r: GemmReport) => number): number => median(runs.map(pick));
      const result: GemmCell = { ...cell, runs, wallMs: mid((r) => r.wallMs), computeMs: mid((r) => r.computeMs), stallMs: mid((r) => r.stallMs), peakRssDelta: mid((r) => r.memory.peakRssDelta) };
      await store.append(result);
      cells.push(result);
    }
    if (config.peer) {
      const peer: GemmPeerCell = { peer: await peerMatMul(sizes.n, sizes.seed) };
      progress.step(`onnxruntime MatMul n=${sizes.n}: ${peer.peer.gflops.toFixed(1)} GFLOP/s`);
      await store.append(peer);
      cells.push(peer);
    }
    return cells;
  },
};

registerStudy(gemmTilingStudy);
