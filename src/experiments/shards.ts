import { createHash } from 'node:crypto';
import type { Complexity } from '../planners/planner.ts';
import { ExperimentError } from './config.ts';

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
    if (count === undefined) throw new ExperimentError('$JOB_COMPLETION_INDEX is set: give the number of shards with --shard-count N (or $MEMPLAN_SHARD_COUNT), the Job\'s completions.');
    return parseShard(`${index}/${count}`);
  }
  return undefined;
}

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
 * every shard computes the same assignment from the same experiment.
 */
export function assignShards(cells: readonly ShareableCell[], count: number): number[] {
  const order = cells.map((_, k) => k).sort((a, b) => cells[b].cost - cells[a].cost || stableHash(cells[a].key) - stableHash(cells[b].key) || (cells[a].key < cells[b].key ? -1 : 1));
  const load = new Array<number>(count).fill(0);
  const shard = new Array<number>(cells.length);
  for (const k of order) {
    let best = 0;
    for (let s = 1; s < count; s++) if (load[s] < load[best]) best = s;
    shard[k] = best;
    load[best] += cells[k].cost;
  }
  return shard;
}

/** Expected planning work of a cell, from the planner's growth in the records (searches: their time limit). */
export function expectedCost(records: number, complexity: Complexity, repetitions: number, searchLimitMs: number, executes: boolean): number {
  const n = Math.max(1, records);
  const work = { n, 'n log n': n * Math.log2(n + 1), 'n^2': n * n, 'n^3': n * n * n, exponential: 0 }[complexity];
  // About 1e8 simple steps per second; an execution costs about a second per cell.
  const ms = complexity === 'exponential' ? searchLimitMs : (work / 1e5) * repetitions;
  return ms + (executes ? 1000 : 0);
}

/** A fingerprint of an experiment's configuration: shards of one sweep must share it. */
export function configHash(config: unknown): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
}
