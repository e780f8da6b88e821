import { naiveFootprint, type Problem } from '../../core/problem.ts';
import { planAndVerify } from '../plan-and-verify.ts';
import type { Planner } from '../planner.ts';
import { InfeasibleBudgetError } from './infeasible-budget.ts';

/**
 * Whether `planner` gives a verified plan of `problem` in `budget` bytes (the problem's own
 * budget where none is given): the question each step of a smallest-budget search asks. A
 * budget the planner cannot meet is a no, not an error, and it does not search for the
 * smallest budget itself (findSmallestBudget false): the caller is that search.
 */
export function fitsBudget(planner: Planner, problem: Problem, alignment: number, budget?: number): boolean {
  try {
    return planAndVerify(planner, problem, { alignment, ...(budget === undefined ? {} : { budget }), findSmallestBudget: false }).valid;
  } catch (error) {
    if (error instanceof InfeasibleBudgetError) return false;
    throw error;
  }
}

/**
 * The smallest budget, in whole alignment steps, at which `fits` holds: bisection between
 * a budget known not to fit (`below`, or none) and one that fits (found by doubling from
 * `start`). A greedy planner need not be monotone in its budget, so the answer is a
 * boundary, not a global minimum: it fits, and one alignment step below it does not.
 * Returns undefined when nothing up to 2^52 bytes fits.
 */
export function smallestBudget(fits: (budget: number) => boolean, options: { readonly step: number; readonly start: number; readonly below?: number }): number | undefined {
  const step = Math.max(1, options.step);
  // In units of `step`: lo does not fit (or is -1), hi fits.
  let lo = options.below === undefined ? -1 : Math.floor(options.below / step);
  let hi = Math.max(lo + 1, Math.ceil(options.start / step));
  while (!fits(hi * step)) {
    lo = hi;
    hi *= 2;
    if (hi * step > 2 ** 52) return undefined;
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (fits(mid * step)) hi = mid;
    else lo = mid;
  }
  // lo = -1 means even a budget of 0 was never ruled out: check it.
  return lo === -1 && fits(0) ? 0 : hi * step;
}

/**
 * The smallest budget at which `planner` gives a verified plan of the records a budget
 * makes (`problemAt`: a graph's records depend on the budget, which decides the weight
 * slicing; a record file's do not), in steps of the alignment. The records are planned in
 * the budget their problem carries, where it carries one: a budget of a whole run leaves
 * less than itself for the plan (graph I/O and the runtime's share lie outside it).
 */
export function smallestBudgetFor(planner: Planner, problemAt: (budget: number) => Problem, alignment: number): number | undefined {
  const fits = (budget: number): boolean => {
    const problem = problemAt(budget);
    return fitsBudget(planner, problem, alignment, problem.budget ?? budget);
  };
  // No lower bound is shared by every budget's records (a smaller budget slices finer,
  // which changes them), so the search starts from nothing.
  return smallestBudget(fits, { step: alignment, start: naiveFootprint(problemAt(2 ** 40)) });
}
