import { checkAlignment } from '../../core/alignment.ts';
import { offsetsPlan, type OffsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { checkLimit, DEFAULT_TIME_LIMIT_MS, type OffsetsPlanner, type PlannerOptions } from '../planner.ts';
import { DEFAULT_THREADS, solveWithThreads } from './exact/portfolio.ts';
import { withTrajectory } from './exact/trajectory.ts';

/** Options of the exact planners (the time limit is shared with the search planners). */
export interface ExactPlannerOptions extends PlannerOptions {
  /**
   * Search nodes in all (default: no limit). A run that stops on nodes, not on time,
   * returns the same plan on every machine.
   */
  readonly nodeLimit?: number;
  /**
   * Search threads, 1 or 2 (default 2: exact/portfolio.ts). With 2, `nodeLimit` counts per
   * thread. The same seed and thread count give the same plan wherever the run stops on
   * nodes or on a proof.
   */
  readonly threads?: number;
}

/** The options of offsets/exact and offsets/search, checked, as the solver takes them. */
export function solverOptions(options: ExactPlannerOptions | undefined): { alignment: number; timeLimitMs: number; nodeLimit: number; threads: number } {
  return {
    alignment: checkAlignment(options?.alignment),
    timeLimitMs: checkLimit('timeLimitMs', options?.timeLimitMs, DEFAULT_TIME_LIMIT_MS),
    nodeLimit: checkLimit('nodeLimit', options?.nodeLimit, Infinity),
    threads: options?.threads ?? DEFAULT_THREADS,
  };
}

/**
 * An exact planner's plan always carries its claim; how the search got there (best arena
 * and proven bound over time, the last point the claim) is `trajectoryOf(plan)`.
 */
export interface ExactOffsetsPlan extends OffsetsPlan {
  readonly optimal: boolean;
  readonly bound: number;
}

/**
 * Offsets by branch and bound (exact/solve.ts) beside an improving search in a second
 * thread (exact/portfolio.ts): the best plan found within the time limit, and whether it
 * is proven optimal. Deterministic for a seed and thread count when it finishes within
 * the limit (or stops on `nodeLimit`).
 */
export const exact: OffsetsPlanner & { plan(problem: Problem, options?: ExactPlannerOptions): ExactOffsetsPlan } = {
  id: 'offsets/exact',
  approach: 'offsets',
  title: 'Optimal (branch and bound)',
  citation: 'this project; canonical skyline packings in the spirit of MiniMalloc (Moffitt 2023)',
  complexity: 'exponential',
  searches: true,
  plan(problem: Problem, options?: ExactPlannerOptions): ExactOffsetsPlan {
    // The first search runs its fixed schedule whatever the seed (what proves the optimum
    // today keeps proving it); the seed varies the second thread's orders.
    const outcome = solveWithThreads(problem, { ...solverOptions(options), improverSeed: options?.seed ?? 1 });
    return withTrajectory({ ...offsetsPlan(problem, outcome.offsets), optimal: outcome.optimal, bound: outcome.bound }, outcome.trajectory);
  },
};
