import { sharedObjectsPlan } from '../../core/plans.ts';
import { inFirstUseOrder } from '../first-use-order.ts';
import { withAlignedSizes, type SharedObjectsPlanner } from '../planner.ts';
import { ObjectsInUse } from './objects-in-use.ts';

/**
 * Equality (TFLite's EqualityAssignmentWithHash): in order of first use, reuse a free
 * object of exactly the tensor's size (the most recently freed one), else open a new one.
 */
export const equality: SharedObjectsPlanner = {
  id: 'shared-objects/equality',
  approach: 'shared-objects',
  title: 'Equality',
  citation: 'Lee et al. 2019, TFLite GPU delegate (EqualityAssignment)',
  complexity: 'n log n',
  ordersByFirstUse: true,
  plan(problem, options) {
    const { objectIds, objectSizes } = inFirstUseOrder(withAlignedSizes(problem, options), (records) => {
      const ids: number[] = [];
      const sizes: number[] = [];
      const freeBySize = new Map<number, number[]>();
      const inUse = new ObjectsInUse();
      for (const record of records) {
        inUse.releaseBefore(record.first, (id) => {
          const pool = freeBySize.get(sizes[id]);
          if (pool) pool.push(id);
          else freeBySize.set(sizes[id], [id]);
        });
        const reused = freeBySize.get(record.size)?.pop();
        const id = reused ?? sizes.push(record.size) - 1;
        ids.push(id);
        inUse.use(id, record.last);
      }
      return { objectIds: ids, objectSizes: sizes };
    });
    return sharedObjectsPlan(objectIds, objectSizes);
  },
};
