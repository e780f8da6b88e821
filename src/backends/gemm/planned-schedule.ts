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
 * How the planned scheduler keeps tiles: which A and B tiles stay resident between their
 * uses (none; a row of A across the row of C; every tile from first to last use), which
 * matrices are loaded one task ahead (overlapping I/O with the product), and whether a
 * finished C tile keeps its space while it is written (write-behind).
 */
export interface ResidencyPolicy {
  readonly reuse: 'none' | 'a-row' | 'all';
  readonly prefetch: readonly ('A' | 'B')[];
  readonly writeBehind: boolean;
}

/** From the most overlap and reuse to none: the first whose plan fits the budget is taken. */
export const POLICIES: readonly ResidencyPolicy[] = [
  { reuse: 'all', prefetch: ['A', 'B'], writeBehind: true },
  { reuse: 'a-row', prefetch: ['A', 'B'], writeBehind: true },
  { reuse: 'none', prefetch: ['A', 'B'], writeBehind: true },
  { reuse: 'none', prefetch: ['A', 'B'], writeBehind: false },
  { reuse: 'none', prefetch: ['A'], writeBehind: false },
  { reuse: 'none', prefetch: [], writeBehind: false },
];

export function describePolicy(policy: ResidencyPolicy): string {
  const reuse = { none: 'no reuse', 'a-row': 'A rows kept', all: 'A rows and all of B kept' }[policy.reuse];
  const ahead = policy.prefetch.length === 0 ? 'no prefetch' : `${policy.prefetch.join(' and ')} loaded a task ahead`;
  return `${reuse}, ${ahead}${policy.writeBehind ? ', C written behind' : ''}`;
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
export function residencies(tasks: readonly GemmTask[], policy: ResidencyPolicy): Residency[] {
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
  const out: Residency[] = [];
  for (const { tile, steps } of uses.values()) {
    if (tile.matrix === 'C') {
      const lastUse = steps[steps.length - 1];
      out.push({ tile, first: steps[0], last: lastUse + (policy.writeBehind ? 1 : 0), lastUse, load: false });
      continue;
    }
    const ahead = policy.prefetch.includes(tile.matrix) ? 1 : 0;
    const kept = policy.reuse === 'all' || (policy.reuse === 'a-row' && tile.matrix === 'A');
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
  /** Which of POLICIES it runs (with `plan.offsets`, what a measured process needs to run it). */
  readonly policyIndex: number;
}

/**
 * The planned scheduler (this project's): the task order is known ahead, so every tile's
 * residency is a usage record; the paper's Greedy by Size for offsets places them in one
 * arena, the verifier checks the plan, and the first policy whose arena fits the budget is
 * run with no allocation at run time. Too small a budget for even one step is a clear error
 * naming the smallest budget that works.
 */
export function plannedSchedule(shape: GemmShape, budget: number, planner = 'offsets/greedy-by-size'): PlannedSchedule {
  const tooSmall = budgetProblem(shape, budget);
  if (tooSmall !== undefined) throw new BackendError(tooSmall);
  for (let policyIndex = 0; policyIndex < POLICIES.length; policyIndex++) {
    const schedule = planPolicy(shape, policyIndex, findPlanner(planner));
    if (schedule.arenaBytes <= budget) return schedule;
  }
  // The last policy needs exactly three tiles at a time; the check above rules this out.
  throw new Error('no residency policy fits, not even three tiles.');
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
export function planPolicy(shape: GemmShape, policyIndex: number, planner: Planner | ReceivedTilePlan): PlannedSchedule {
  const tasks = rowMajorTasks(shape);
  const policy = POLICIES[policyIndex];
  if (policy === undefined) throw new RangeError(`no residency policy ${policyIndex}.`);
  const list = residencies(tasks, policy);
  const problem = residencyProblem(shape, list, tasks.length);
  const plan =
    'offsets' in planner
      ? acceptReceived({ planner: planner.planner, plan: offsetsPlan(problem, planner.offsets) }, problem, ARENA_ALIGNMENT, 'in the GEMM process')
      : planAndVerify(planner, problem, { alignment: ARENA_ALIGNMENT });
  if (!plan.valid) throw new Error(`${plan.planner} produced an invalid tile plan: ${plan.violations[0]?.message}`);
  return { scheduler: 'planned', arenaBytes: plan.footprint, policy: describePolicy(policy), policyIndex, plan, problem, steps: () => plannedSteps(tasks, list, plan) };
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
