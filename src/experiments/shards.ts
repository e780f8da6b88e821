import { createHash } from 'node:crypto';
import type { Complexity } from '../planners/planner.ts';
import type { Experiment } from './config.ts';
import { ExperimentError } from './experiment-error.ts';

/**
 * A share of an experiment's cells, for sweeps that outgrow one machine: shard `index` of
 * `count` (0-based), run as its own process (a Slurm array task, a Kubernetes indexed Job's
 * pod, a CI matrix job), each writing its own run folder that `memplan merge` joins.
 */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

export function parseShard(text: string): ShardSpec {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || !Number.isSafeInteger(count) || count < 1 || index >= count) {
    throw new ExperimentError(`--shard "${text}" is not I/N with 0 <= I < N (shards count from 0).`);
  }
  return { index, count };
}

/**
 * The shard this process runs, from the command line or the environment, in this order:
 * `--shard I/N`; Slurm's array variables (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN,
 * of SLURM_ARRAY_TASK_COUNT); Kubernetes' JOB_COMPLETION_INDEX with `--shard-count N` (or
 * MEMPLAN_SHARD_COUNT). None of them: the whole experiment.
 */
export function chooseShard(option: string | undefined, countOption: number | undefined, env: NodeJS.ProcessEnv = process.env): ShardSpec | undefined {
  if (option !== undefined) return parseShard(option);
  const whole = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    if (!/^\d+$/.test(value)) throw new ExperimentError(`$${name} is "${value}", not a whole number.`);
    return Number(value);
  };
  const task = whole('SLURM_ARRAY_TASK_ID');
  if (task !== undefined) {
    const count = whole('SLURM_ARRAY_TASK_COUNT');
    if (count === undefined) throw new ExperimentError('$SLURM_ARRAY_TASK_ID is set but $SLURM_ARRAY_TASK_COUNT is not: submit the sweep as an array (sbatch --array=0-N).');
    return parseShard(`${task - (whole('SLURM_ARRAY_TASK_MIN') ?? 0)}/${count}`);
  }
  const index = whole('JOB_COMPLETION_INDEX');
  if (index !== undefined) {
    const count = countOption ?? whole('MEMPLAN_SHARD_COUNT');
    if (count === undefined) throw new ExperimentError("$JOB_COMPLETION_INDEX is set: give the number of shards with --shard-count N (or $MEMPLAN_SHARD_COUNT), the Job's completions.");
    return parseShard(`${index}/${count}`);
  }
  return undefined;
}

/**
 * Refuses more shards than cells before anything runs: the extra shards would have nothing
 * to do, and a count in the billions is a typo (it once meant minutes of splitting, or an
 * array too large to make).
 */
export function checkShardCount(shard: ShardSpec, cells: number, file: string): void {
  if (shard.count > cells)
    throw new ExperimentError(`shard ${shard.index}/${shard.count}: ${file} has ${cells} cell${cells === 1 ? '' : 's'}, so it splits into at most ${cells} shard${cells === 1 ? '' : 's'}.`);
}

/**
 * The records a file source (a trace) is costed at when its cells are shared out. The file
 * is not read for it: a split must come from the experiment file alone, the same on a
 * machine that has the trace and on one that lacks it (an optional source).
 */
export const FILE_SOURCE_RECORDS = 1000;

/** A cell to share out: its key and how long it is expected to take (any unit, the same for all). */
export interface ShareableCell {
  readonly key: string;
  readonly cost: number;
}

/** A stable 32-bit number of a key (the first bytes of its SHA-256): the same on every machine. */
export function stableHash(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0);
}

/**
 * The shard of every cell: the most expensive cells first (ties in stable-hash order), each
 * to the shard with the least expected work so far (ties: the lowest index). Deterministic:
 * every shard computes the same assignment from the same experiment. The shards wait in a
 * heap, so the split takes O(C log C) for C cells whatever the count; a shard above C - 1
 * would never get a cell (a shard gets its first cell only once every lower one has one), so
 * only min(count, C) shards are kept, and a huge count allocates nothing.
 */
export function assignShards(cells: readonly ShareableCell[], count: number): number[] {
  // Hashes once per cell: a SHA-256 per comparison made large splits slow.
  const hash = cells.map((c) => stableHash(c.key));
  const order = cells.map((_, k) => k).sort((a, b) => cells[b].cost - cells[a].cost || hash[a] - hash[b] || (cells[a].key < cells[b].key ? -1 : 1));
  const heap = new ShardHeap(Math.min(count, cells.length));
  const shard = new Array<number>(cells.length);
  for (const k of order) {
    const best = heap.lightest();
    shard[k] = best;
    heap.add(best, cells[k].cost);
  }
  return shard;
}

/** Shards by (load, index), the lightest on top: the least loaded shard, ties to the lowest index. */
class ShardHeap {
  private readonly load: number[];
  private readonly index: number[];

  constructor(count: number) {
    // All loads 0: indices in ascending order already form a heap.
    this.load = new Array<number>(count).fill(0);
    this.index = Array.from({ length: count }, (_, k) => k);
  }

  lightest(): number {
    return this.index[0];
  }

  /** Adds `cost` to the top shard (the one `lightest` named) and sinks it to its place. */
  add(shard: number, cost: number): void {
    if (this.index[0] !== shard) throw new Error(`ShardHeap.add: shard ${shard} is not the lightest`);
    this.load[0] += cost;
    const size = this.index.length;
    for (let at = 0; ; ) {
      const left = 2 * at + 1;
      if (left >= size) return;
      const child = left + 1 < size && this.lighter(left + 1, left) ? left + 1 : left;
      if (!this.lighter(child, at)) return;
      this.swap(child, at);
      at = child;
    }
  }

  private lighter(a: number, b: number): boolean {
    return this.load[a] < this.load[b] || (this.load[a] === this.load[b] && this.index[a] < this.index[b]);
  }

  private swap(a: number, b: number): void {
    [this.load[a], this.load[b]] = [this.load[b], this.load[a]];
    [this.index[a], this.index[b]] = [this.index[b], this.index[a]];
  }
}

/** Expected planning work of a cell, from the planner's growth in the records (searches: their time limit). */
export function expectedCost(records: number, complexity: Complexity, repetitions: number, searchLimitMs: number, executes: boolean): number {
  const n = Math.max(1, records);
  const work = { n, 'n log n': n * Math.log2(n + 1), 'n^2': n * n, 'n^3': n * n * n, exponential: 0 }[complexity];
  // About 1e8 simple steps per second; an execution costs about a second per cell.
  const ms = complexity === 'exponential' ? searchLimitMs : (work / 1e5) * repetitions;
  return ms + (executes ? 1000 : 0);
}

/**
 * A fingerprint of an experiment's configuration: shards of one sweep must share it. Taken
 * over the experiment as its file names things (file sources and planner modules not
 * resolved against the file's folder, the file's own path left out), so that shards run
 * from checkouts at different paths share it.
 */
export function configHash(experiment: Experiment): string {
  const named = {
    ...experiment,
    file: undefined,
    models: experiment.models.map((model) => ({ ...model, source: model.named })),
    planners: experiment.planners.map((planner) => ({ ...planner, ref: planner.named ?? planner.ref })),
  };
  return createHash('sha256').update(JSON.stringify(named)).digest('hex').slice(0, 16);
}
