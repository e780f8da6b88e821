import type { Problem } from '../../core/problem.ts';
import type { TensorUsageRecord } from '../../core/records.ts';
import { offsetsPlan } from '../../core/plans.ts';
import { planAndVerify, type VerifiedResult } from '../../planners/plan-and-verify.ts';
import { acceptReceived } from '../../planners/plan-handover.ts';
import type { Planner } from '../../planners/planner.ts';
import { findPlanner } from '../../planners/registry.ts';
import { BackendError } from '../backend-error.ts';
import { rowMajorTasks, taskTiles, tileKey, type GemmShape, type GemmTask, type TileId } from './gemm-shape.ts';
import { budgetProblem, type GemmSchedule, type Placement, type ScheduleStep } from './schedule.ts';

/** Offsets are multiples of this: O_DIRECT reads and writes land on page boundaries. */
export const ARENA_ALIGNMENT = 4096;

/**
 * How the planned scheduler keeps tiles: whether A's tiles stay resident across their row
 * of C (a-row reuse), how many of B's tiles stay resident from their first use to their
 * last (the rest are loaded for each use), which matrices are loaded one task ahead
 * (overlapping I/O with the product), and whether a finished C tile keeps its space while
 * it is written (write-behind).
 */
export interface ResidencyPolicy {
  readonly reuse: 'none' | 'a-row';
  /**
   * B tiles kept resident across the rows of C (with a-row reuse): the first `keptB` in the
   * order the first row uses them (column by column). Each kept tile saves a read per later
   * row; tiles² keeps all of B, and every input is then read once.
   */
  readonly keptB: number;
  readonly prefetch: readonly ('A' | 'B')[];
  readonly writeBehind: boolean;
}

/**
 * From the most overlap and reuse to none: the first whose plan fits the budget is taken.
 * The first rung's keptB is what the budget settles (plannedSchedule): every B tile a
 * budget can hold beside the A row is one fewer read per row, so a larger budget buys
 * fewer reads, up to all of B.
 */
export const POLICIES: readonly ResidencyPolicy[] = [
  { reuse: 'a-row', keptB: 0, prefetch: ['A', 'B'], writeBehind: true },
  { reuse: 'none', keptB: 0, prefetch: ['A', 'B'], writeBehind: true },
  { reuse: 'none', keptB: 0, prefetch: ['A', 'B'], writeBehind: false },
  { reuse: 'none', keptB: 0, prefetch: ['A'], writeBehind: false },
  { reuse: 'none', keptB: 0, prefetch: [], writeBehind: false },
];

export function describePolicy(policy: ResidencyPolicy, shape: GemmShape): string {
  const all = shape.tiles * shape.tiles;
  const reuse = policy.reuse === 'none' ? 'no reuse' : policy.keptB >= all ? 'A rows and all of B kept' : policy.keptB > 0 ? `A rows and ${policy.keptB} of ${all} B tiles kept` : 'A rows kept';
  const ahead = policy.prefetch.length === 0 ? 'no prefetch' : `${policy.prefetch.join(' and ')} loaded a task ahead`;
  return `${reuse}, ${ahead}${policy.writeBehind ? ', C written behind' : ''}`;
}

/**
 * A policy as it arrives in the process that runs the GEMM, checked: a forged one must fail
 * here in one sentence, not as an out-of-range residency later.
 */
export function checkPolicy(policy: ResidencyPolicy, shape: GemmShape): ResidencyPolicy {
  const all = shape.tiles * shape.tiles;
  const ok =
    (policy.reuse === 'none' || policy.reuse === 'a-row') &&
    Number.isSafeInteger(policy.keptB) &&
    policy.keptB >= 0 &&
    policy.keptB <= (policy.reuse === 'a-row' ? all : 0) &&
    Array.isArray(policy.prefetch) &&
    policy.prefetch.every((m) => m === 'A' || m === 'B') &&
    typeof policy.writeBehind === 'boolean';
  if (!ok) throw new BackendError(`the GEMM process received a tile policy it cannot run: ${JSON.stringify(policy)}.`);
  return policy;
}

/**
 * One residency of a tile: its space reserved over steps [first, last], its last product at
 * step lastUse; `load` false for a C tile, which its first product writes.
 */
interface Residency {
  readonly tile: TileId;
  readonly first: number;
  readonly last: number;
  readonly lastUse: number;
  readonly load: boolean;
}

/**
 * The residencies of every tile for the row-major task order under a policy. A tile used
 * at task t and loaded a task ahead is resident from t - 1 (its load overlaps task t - 1);
 * kept tiles are resident from their first use to their last; a C tile from its first task
 * to its last, or one step longer while it is written behind the next task.
 */
export function residencies(tasks: readonly GemmTask[], policy: ResidencyPolicy, tiles: number): Residency[] {
  const uses = new Map<string, { tile: TileId; steps: number[] }>();
  tasks.forEach((task, step) => {
    const { a, b, c } = taskTiles(task);
    for (const tile of [a, b, c]) {
      const key = tileKey(tile);
      const entry = uses.get(key) ?? { tile, steps: [] };
      entry.steps.push(step);
      uses.set(key, entry);
    }
  });
  // B(l, j) is the (j * tiles + l)-th B tile the first row of C uses.
  const keptB = (tile: TileId): boolean => tile.c * tiles + tile.r < policy.keptB;
  const out: Residency[] = [];
  for (const { tile, steps } of uses.values()) {
    if (tile.matrix === 'C') {
      const lastUse = steps[steps.length - 1];
      out.push({ tile, first: steps[0], last: lastUse + (policy.writeBehind ? 1 : 0), lastUse, load: false });
      continue;
    }
    const ahead = policy.prefetch.includes(tile.matrix) ? 1 : 0;
    const kept = policy.reuse === 'a-row' && (tile.matrix === 'A' || keptB(tile));
    if (kept) {
      out.push({ tile, first: Math.max(0, steps[0] - ahead), last: steps[steps.length - 1], lastUse: steps[steps.length - 1], load: true });
    } else {
      for (const step of steps) out.push({ tile, first: Math.max(0, step - ahead), last: step, lastUse: step, load: true });
    }
  }
  return out;
}

/** The residencies as usage records (closed intervals over steps, one tile's bytes each). */
export function residencyProblem(shape: GemmShape, list: readonly Residency[], steps: number): Problem {
  const records: TensorUsageRecord[] = list.map((r, k) => ({ id: `${tileKey(r.tile)}@${r.first}#${k}`, first: r.first, last: r.last, size: shape.tileBytes }));
  return { name: `gemm-${shape.n}-tile-${shape.tile}`, records, operatorCount: steps + 1 };
}

export interface PlannedSchedule extends GemmSchedule {
  readonly plan: VerifiedResult;
  readonly problem: Problem;
  /** The policy it runs (with `plan.offsets`, what a measured process needs to run it). */
  readonly residency: ResidencyPolicy;
}

/**
 * The planned scheduler (this project's): the task order is known ahead, so every tile's
 * residency is a usage record; the paper's Greedy by Size for offsets places them in one
 * arena, the verifier checks the plan, and the first policy whose arena fits the budget is
 * run with no allocation at run time. On the first rung (A rows kept) the budget decides
 * how many B tiles stay resident too: as many as fit, found by bisection between none and
 * what the budget holds beside the A rows (the arena grows by about a tile per kept tile;
 * only a plan that fits is ever taken). Too small a budget for even one step is a clear
 * error naming the smallest budget that works.
 */
export function plannedSchedule(shape: GemmShape, budget: number, planner = 'offsets/greedy-by-size'): PlannedSchedule {
  const tooSmall = budgetProblem(shape, budget);
  if (tooSmall !== undefined) throw new BackendError(tooSmall);
  const strategy = findPlanner(planner);
  const rowKept = planPolicy(shape, POLICIES[0], strategy);
  if (rowKept.arenaBytes <= budget) return keepingB(shape, budget, rowKept, strategy);
  for (const policy of POLICIES.slice(1)) {
    const schedule = planPolicy(shape, policy, strategy);
    if (schedule.arenaBytes <= budget) return schedule;
  }
  // The last policy needs exactly three tiles at a time; the check above rules this out.
  throw new Error('no residency policy fits, not even three tiles.');
}

/** The A-rows schedule with as many B tiles kept as the budget holds (`none`: keeping none, known to fit). */
function keepingB(shape: GemmShape, budget: number, none: PlannedSchedule, planner: Planner): PlannedSchedule {
  const all = shape.tiles * shape.tiles;
  const withKept = (keptB: number): PlannedSchedule => planPolicy(shape, { ...POLICIES[0], keptB }, planner);
  // Each kept tile adds a tile to the later rows' peak, less up to two when the streamed B
  // tiles it replaces (the one in use, the one loading) are kept too: no count above this fits.
  const estimate = Math.min(all, Math.floor((budget - none.arenaBytes) / shape.tileBytes) + 2);
  if (estimate <= 0) return none;
  const first = withKept(estimate);
  if (first.arenaBytes <= budget) return first;
  // Bisect between a count known to fit and one known not to.
  let best = none;
  let fits = 0;
  let over = estimate;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    const schedule = withKept(middle);
    if (schedule.arenaBytes <= budget) {
      best = schedule;
      fits = middle;
    } else {
      over = middle;
    }
  }
  return best;
}

/** The harness's tile plan as it reaches the process that runs the GEMM: its planner and offsets. */
export interface ReceivedTilePlan {
  readonly planner: string;
  readonly offsets: readonly number[];
}

/**
 * The schedule of one policy, its residencies placed by `planner` and verified: the
 * harness plans, and the process that runs the GEMM receives the same offsets and checks
 * them with the verifier against the residencies it derives itself, as network
 * measurements do.
 */
export function planPolicy(shape: GemmShape, policy: ResidencyPolicy, planner: Planner | ReceivedTilePlan): PlannedSchedule {
  checkPolicy(policy, shape);
  const tasks = rowMajorTasks(shape);
  const list = residencies(tasks, policy, shape.tiles);
  const problem = residencyProblem(shape, list, tasks.length);
  const plan =
    'offsets' in planner
      ? acceptReceived({ planner: planner.planner, plan: offsetsPlan(problem, planner.offsets) }, problem, ARENA_ALIGNMENT, 'in the GEMM process')
      : planAndVerify(planner, problem, { alignment: ARENA_ALIGNMENT });
  if (!plan.valid) throw new Error(`${plan.planner} produced an invalid tile plan: ${plan.violations[0]?.message}`);
  return { scheduler: 'planned', arenaBytes: plan.footprint, policy: describePolicy(policy, shape), residency: policy, plan, problem, steps: () => plannedSteps(tasks, list, plan) };
}

function* plannedSteps(tasks: readonly GemmTask[], list: readonly Residency[], plan: VerifiedResult): Iterable<ScheduleStep> {
  const at = (k: number): Placement => ({ tile: list[k].tile, at: plan.offsets[k] });
  const byStep = (pick: (r: Residency) => number): Map<number, number[]> => {
    const map = new Map<number, number[]>();
    list.forEach((r, k) => map.set(pick(r), [...(map.get(pick(r)) ?? []), k]));
    return map;
  };
  const starting = byStep((r) => r.first);
  // A and B tiles leave after their reserved steps; a C tile is written right after its last
  // product (behind the next task when its record reserves that step too).
  const leaving = byStep((r) => r.last + 1);
  const lastProduct = byStep((r) => r.lastUse + 1);
  const covering = new Map<string, number>();
  for (let step = 0; step <= tasks.length; step++) {
    const evictions = (leaving.get(step) ?? []).filter((k) => list[k].tile.matrix !== 'C').map(at);
    const writes = (lastProduct.get(step) ?? []).filter((k) => list[k].tile.matrix === 'C').map(at);
    if (step === tasks.length) {
      yield { evictions, writes, loads: [] };
      return;
    }
    for (const k of starting.get(step) ?? []) covering.set(tileKey(list[k].tile), k);
    const task = tasks[step];
    const { a, b, c } = taskTiles(task);
    const where = (tile: TileId): number => {
      const k = covering.get(tileKey(tile));
      if (k === undefined || list[k].first > step || list[k].last < step) throw new Error(`no residency of ${tileKey(tile)} covers step ${step}.`);
      return plan.offsets[k];
    };
    const loads = (starting.get(step) ?? []).filter((k) => list[k].load).map(at);
    yield { task, at: { a: where(a), b: where(b), c: where(c) }, accumulate: task.l > 0, evictions, writes, loads };
  }
}
