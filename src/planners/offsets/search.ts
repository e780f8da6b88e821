import { offsetsPlan, type OffsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import type { OffsetsPlanner } from '../planner.ts';
import { solverOptions, type ExactPlannerOptions } from './exact.ts';
import { solveOffsetsExact } from './exact/solve.ts';
import { withTrajectory } from './exact/trajectory.ts';

/** As offsets/exact's: a time limit, a node limit (a search stopped by nodes alone repeats exactly) and a seed. */
export type SearchPlannerOptions = ExactPlannerOptions;

/**
 * Improvement search from the better of Greedy by Size and Strip Packing Best-fit: the
 * restarted searches of offsets/exact (canonical skyline packings under a shrinking
 * capacity, Luby-length runs over the fixed record orders, then over orders with noise
 * drawn from the seed), with no claim of optimality. Never worse than Greedy by Size.
 * Deterministic for a seed unless the time limit stops it (a node limit stops it the same
 * way everywhere).
 */
export const search: OffsetsPlanner & { plan(problem: Problem, options?: SearchPlannerOptions): OffsetsPlan } = {
  id: 'offsets/search',
  approach: 'offsets',
  title: 'Seeded restart search',
  citation: 'this project; randomized restarts (Luby et al. 1993) over skyline packings',
  complexity: 'exponential',
  searches: true,
  plan(problem: Problem, options?: SearchPlannerOptions): OffsetsPlan {
    const seed = options?.seed ?? 1;
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a whole number >= 0, got ${options?.seed}.`);
    // One thread: the seeded restarts of the first search alone (offsets/exact adds the second).
    const outcome = solveOffsetsExact(problem, { ...solverOptions(options), seed });
    // The trajectory (trajectoryOf) has the bounds the search proved on the way; the plan claims none.
    return withTrajectory(offsetsPlan(problem, outcome.offsets), outcome.trajectory);
  },
};
