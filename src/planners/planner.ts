import { alignUp, checkAlignment } from '../core/alignment.ts';
import type { OffsetsPlan, SharedObjectsPlan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';

export interface PlannerOptions {
  /** Bytes; offsets (and shared-object sizes) become multiples of it. Default 1. */
  readonly alignment?: number;
  /**
   * Search planners only (`searches: true`): wall-clock limit in milliseconds (default
   * 10 000). A search that stops on it may return another plan on another machine.
   */
  readonly timeLimitMs?: number;
  /** Search planners only: seed of their choices (default 1); the same seed, the same plan. */
  readonly seed?: number;
  /**
   * The tie-order study: break ties among equal keys (sizes, breadths, gaps, first uses) in
   * the problem's own record order, which the study shuffles, and rank operators of equal
   * breadth in an order drawn from this seed. Absent: TFLite's order (records stably sorted
   * by first use, operators by index; `inTieOrder` in first-use-order.ts).
   */
  readonly tieSeed?: number;
  /**
   * Budgeted planners (`budgeted/...`): bytes the plan must fit in, instead of the
   * problem's own budget. Other planners ignore budgets (the verifier rejects a plan
   * above one) and plan every record over [first, last]: a weight at its layer, no preload.
   */
  readonly budget?: number;
  /**
   * Budgeted planners: when the budget cannot be met, whether the InfeasibleBudgetError
   * searches for and names the smallest budget that works for these records (a bisection,
   * each step a planning attempt: most of an infeasible call's time). Default true; false
   * where the caller asks only whether the budget fits (a search of its own), or names the
   * smallest budget of a whole run instead.
   */
  readonly findSmallestBudget?: boolean;
}

/**
 * Worst-case growth of planning time in the number of records, as the code runs;
 * 'exponential' for searches, which stop at their time limit.
 */
export type Complexity = 'n' | 'n log n' | 'n^2' | 'n^3' | 'exponential';

export const DEFAULT_TIME_LIMIT_MS = 10_000;

/** Checks a limit option (milliseconds, nodes): a number >= 0, Infinity allowed. */
export function checkLimit(name: string, value: number | undefined, fallback: number): number {
  const limit = value ?? fallback;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) {
    throw new RangeError(`${name} must be a number >= 0, got ${value}.`);
  }
  return limit;
}

interface PlannerInfo {
  /** Stable id, `<approach>/<name>` (DESIGN.md). */
  readonly id: string;
  readonly title: string;
  /** Where the strategy comes from. */
  readonly citation: string;
  readonly complexity: Complexity;
  /**
   * The largest problem (records) it plans in reasonable time and memory on a laptop;
   * callers skip it, or refuse, above this. Absent: no limit.
   */
  readonly maxRecords?: number;
  /**
   * Searches under a time limit (PlannerOptions.timeLimitMs) rather than running a fixed
   * procedure; exact planners also claim optimality (OptimalityClaim).
   */
  readonly searches?: boolean;
  /**
   * Plans the records stably sorted by first use and reads nothing of them but first, last
   * and size, whatever the options' tieSeed (TFLite's in-order strategies, through
   * `inFirstUseOrder` in first-use-order.ts): its footprint is a function of that sorted
   * sequence (`firstUseSequence`), so the tie-order study plans each such sequence once.
   */
  readonly ordersByFirstUse?: true;
}

/** Why a planner will not take this problem, or undefined when it will. */
export function beyondLimit(planner: Planner, records: number): string | undefined {
  if (planner.maxRecords === undefined || records <= planner.maxRecords) return undefined;
  return `${planner.id} plans at most ${planner.maxRecords} records (it is O(${planner.complexity})); this problem has ${records}.`;
}

export interface SharedObjectsPlanner extends PlannerInfo {
  readonly approach: 'shared-objects';
  plan(problem: Problem, options?: PlannerOptions): SharedObjectsPlan;
}

export interface OffsetsPlanner extends PlannerInfo {
  readonly approach: 'offsets';
  plan(problem: Problem, options?: PlannerOptions): OffsetsPlan;
}

export type Planner = SharedObjectsPlanner | OffsetsPlanner;

/**
 * Shared objects are allocated whole, so alignment applies to their sizes: the
 * strategies plan over record sizes rounded up to the alignment (the paper's records
 * already carry "the aligned size").
 */
export function withAlignedSizes(problem: Problem, options: PlannerOptions | undefined): Problem {
  const alignment = checkAlignment(options?.alignment);
  if (alignment === 1) return problem;
  return { ...problem, records: problem.records.map((r) => ({ ...r, size: alignUp(r.size, alignment) })) };
}
