import { lowerBounds } from '../../core/bounds.ts';
import { sharedObjectsPlan, type SharedObjectsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { checkLimit, DEFAULT_TIME_LIMIT_MS, withAlignedSizes, type PlannerOptions, type SharedObjectsPlanner } from '../planner.ts';
import { makeInstance } from './exact/instance.ts';
import { searchSharedObjects } from './exact/search.ts';
import { greedyByBreadth } from './greedy-by-breadth.ts';
import { greedyBySizeImproved } from './greedy-by-size-improved.ts';
import { greedyBySize } from './greedy-by-size.ts';
import { minCostFlow } from './min-cost-flow.ts';

export interface ExactSharedObjectsOptions extends PlannerOptions {
  /**
   * Search nodes in all (default: no limit). A run that stops on nodes, not on time,
   * returns the same plan on every machine.
   */
  readonly nodeLimit?: number;
}

/** An exact planner's plan always carries its claim. */
export interface ExactSharedObjectsPlan extends SharedObjectsPlan {
  /** Proven: no valid plan has a smaller total. */
  readonly optimal: boolean;
  /** A proven lower bound on the total of every valid plan; equals the footprint when optimal. */
  readonly bound: number;
}

/** The strategies the search starts from; on equal totals the first wins (the paper's default). */
const STARTS: readonly SharedObjectsPlanner[] = [greedyBySizeImproved, greedyByBreadth, greedyBySize, minCostFlow];

/**
 * Shared Objects solved exactly by branch and bound (exact/search.ts): records in
 * non-increasing size either join an open object or open one, pruned by a matching-based
 * generalisation of the paper's positional-maxima bound (exact/bound.ts). It starts from
 * the best of the greedy strategies, so it is never worse than any of them, and says
 * whether its plan is proven optimal, with a proven lower bound either way.
 * Deterministic when it finishes within the time limit or stops on `nodeLimit`.
 */
export const exact: SharedObjectsPlanner & { plan(problem: Problem, options?: ExactSharedObjectsOptions): ExactSharedObjectsPlan } = {
  id: 'shared-objects/exact',
  approach: 'shared-objects',
  title: 'Optimal (branch and bound)',
  citation: 'this project',
  complexity: 'exponential',
  searches: true,
  // The greedy starts include min-cost flow (about a second at 400 records) and a search
  // node costs O(points x live records^2): past a few hundred records the time goes to
  // the starts and the search rarely proves anything.
  maxRecords: 400,
  plan(problem: Problem, options?: ExactSharedObjectsOptions): ExactSharedObjectsPlan {
    const timeLimitMs = checkLimit('timeLimitMs', options?.timeLimitMs, DEFAULT_TIME_LIMIT_MS);
    const nodeLimit = checkLimit('nodeLimit', options?.nodeLimit, Infinity);
    // The greedy starts always run in full, and count against the limit.
    const deadline = performance.now() + timeLimitMs;
    const aligned = withAlignedSizes(problem, options);
    let incumbent: SharedObjectsPlan | undefined;
    for (const start of STARTS) {
      if (start.maxRecords !== undefined && aligned.records.length > start.maxRecords) continue;
      const candidate = start.plan(aligned);
      if (incumbent === undefined || candidate.footprint < incumbent.footprint) incumbent = candidate;
    }
    // Greedy by Size has no record limit: there is always a start.
    if (incumbent === undefined) throw new Error('no greedy start takes this problem.');
    const paperBound = lowerBounds(aligned).sharedObjects;
    if (incumbent.footprint <= paperBound) return { ...incumbent, optimal: true, bound: incumbent.footprint };

    const instance = makeInstance(aligned);
    const outcome = searchSharedObjects(instance, incumbent.footprint, { deadline, nodeLimit, lowerBound: paperBound });
    let plan = incumbent;
    if (outcome.objectOf !== undefined) {
      const objectIds = new Array<number>(instance.n);
      for (let p = 0; p < instance.n; p++) objectIds[instance.record[p]] = outcome.objectOf[p];
      plan = sharedObjectsPlan(objectIds, outcome.objectSizes);
    }
    const bound = outcome.complete ? plan.footprint : Math.min(plan.footprint, outcome.bound);
    return { ...plan, optimal: bound === plan.footprint, bound };
  },
};
