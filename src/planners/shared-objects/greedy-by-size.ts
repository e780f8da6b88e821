import { DisjointIntervalSet } from '../../core/interval-set.ts';
import { sharedObjectsPlan, type SharedObjectsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { bySizeDescending, inTieOrder } from '../first-use-order.ts';
import { withAlignedSizes, type PlannerOptions, type SharedObjectsPlanner } from '../planner.ts';

/**
 * Greedy by Size (paper, Algorithm 2): tensors in non-increasing size (ties: record
 * order); each goes to the smallest object with no conflicting tensor (ties: lower id),
 * else to a new object. Objects never grow: every earlier tensor was at least as large.
 */
export const greedyBySize: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-by-size',
  approach: 'shared-objects',
  title: 'Greedy by Size',
  citation: 'Pisarchyk & Lee 2020, Algorithm 2',
  complexity: 'n^2',
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => planInOrder(ordered, options)),
};

function planInOrder(problem: Problem, options: PlannerOptions | undefined): SharedObjectsPlan {
  const { records } = withAlignedSizes(problem, options);
  const objectIds = new Array<number>(records.length).fill(-1);
  const objectSizes: number[] = [];
  const schedules: DisjointIntervalSet[] = [];
  for (const i of bySizeDescending(records)) {
    const { first, last, size } = records[i];
    // Objects were opened in non-increasing size, so walking ids downwards meets
    // sizes in non-decreasing order: the first free object of the smallest free size,
    // walked to its lowest id, is the best fit.
    let best = -1;
    for (let id = objectSizes.length - 1; id >= 0; id--) {
      if (best >= 0 && objectSizes[id] > objectSizes[best]) break;
      if (schedules[id].isFree(first, last)) best = id;
    }
    if (best < 0) {
      best = objectSizes.push(size) - 1;
      schedules.push(new DisjointIntervalSet());
    }
    schedules[best].insert(first, last);
    objectIds[i] = best;
  }
  return sharedObjectsPlan(objectIds, objectSizes);
}
