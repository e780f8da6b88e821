import { DisjointIntervalSet } from '../../core/interval-set.ts';
import { sharedObjectsPlan, type SharedObjectsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { visitByBreadth } from '../breadth-order.ts';
import { inTieOrder } from '../first-use-order.ts';
import { withAlignedSizes, type PlannerOptions, type SharedObjectsPlanner } from '../planner.ts';

/**
 * Greedy by Breadth (paper, Algorithm 1): operators in non-increasing breadth, their
 * unassigned tensors largest first; a tensor goes to the smallest object at least as
 * large as it among those with no conflicting tensor, else to the largest smaller one
 * (grown to fit), else to a new object. Ties go to the lower object id, as in TFLite.
 */
export const greedyByBreadth: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-by-breadth',
  approach: 'shared-objects',
  title: 'Greedy by Breadth',
  citation: 'Pisarchyk & Lee 2020, Algorithm 1',
  complexity: 'n^2',
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => planInOrder(ordered, options)),
};

function planInOrder(problem: Problem, options: PlannerOptions | undefined): SharedObjectsPlan {
  const aligned = withAlignedSizes(problem, options);
  const { records } = aligned;
  const objectIds = new Array<number>(records.length).fill(-1);
  const objectSizes: number[] = [];
  const schedules: DisjointIntervalSet[] = [];
  visitByBreadth(
    aligned,
    (i) => {
      const { size, first, last } = records[i];
      let best = -1;
      for (let id = 0; id < objectSizes.length; id++) {
        if (best >= 0) {
          // Only an object that fits better than the best so far is worth a look.
          const bestSize = objectSizes[best];
          const candidate = objectSizes[id];
          if (bestSize < size ? candidate <= bestSize : candidate < size || candidate >= bestSize) continue;
        }
        if (schedules[id].isFree(first, last)) best = id;
      }
      if (best < 0) {
        best = objectSizes.push(size) - 1;
        schedules.push(new DisjointIntervalSet());
      } else {
        objectSizes[best] = Math.max(objectSizes[best], size);
      }
      schedules[best].insert(first, last);
      objectIds[i] = best;
    },
    options?.tieSeed,
  );
  return sharedObjectsPlan(objectIds, objectSizes);
}
