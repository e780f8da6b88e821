import { checkAlignment } from '../../core/alignment.ts';
import { offsetsPlan, type OffsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { checkLimit, DEFAULT_TIME_LIMIT_MS, type OffsetsPlanner, type PlannerOptions } from '../planner.ts';
import { solveOffsetsExact } from './exact/solve.ts';

/** Options of the exact planners (the time limit is shared with the search planners). */
export interface ExactPlannerOptions extends PlannerOptions {
  /**
   * Search nodes in all (default: no limit). A run that stops on nodes, not on time,
   * returns the same plan on every machine.
   */
  readonly nodeLimit?: number;
}

/** The options of offsets/exact and offsets/search, checked, as the solver takes them. */
export function solverOptions(options: ExactPlannerOptions | undefined): { alignment: number; timeLimitMs: number; nodeLimit: number } {
  return {
    alignment: checkAlignment(options?.alignment),
    timeLimitMs: checkLimit('timeLimitMs', options?.timeLimitMs, DEFAULT_TIME_LIMIT_MS),
    nodeLimit: checkLimit('nodeLimit', options?.nodeLimit, Infinity),
  };
}

/** An exact planner's plan always carries its claim. */
export interface ExactOffsetsPlan extends OffsetsPlan {
  readonly optimal: boolean;
  readonly bound: number;
}

/**
 * Offsets by branch and bound (exact/solve.ts): the best plan found within the time
 * limit, and whether it is proven optimal. Deterministic when it finishes within the
 * limit (or stops on `nodeLimit`).
 */
export const exact: OffsetsPlanner & { plan(problem: Problem, options?: ExactPlannerOptions): ExactOffsetsPlan } = {
  id: 'offsets/exact',
  approach: 'offsets',
  title: 'Optimal (branch and bound)',
  citation: 'this project; canonical skyline packings in the spirit of MiniMalloc (Moffitt 2023)',
  complexity: 'exponential',
  searches: true,
  plan(problem: Problem, options?: ExactPlannerOptions): ExactOffsetsPlan {
    const outcome = solveOffsetsExact(problem, solverOptions(options));
    return { ...offsetsPlan(problem, outcome.offsets), optimal: outcome.optimal, bound: outcome.bound };
  },
};
