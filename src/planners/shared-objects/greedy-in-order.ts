import { sharedObjectsPlan } from '../../core/plans.ts';
import { inFirstUseOrder } from '../first-use-order.ts';
import { withAlignedSizes, type SharedObjectsPlanner } from '../planner.ts';
import { ObjectsInUse } from './objects-in-use.ts';

/**
 * Greedy (in order), Lee et al. 2019 as TFLite ships it (GreedyInOrderAssignment):
 * records in order of first use; objects whose tensor has died return to a pool ordered
 * by (size, id); take the smallest pooled object at least as large as the tensor or the
 * largest smaller one, whichever differs less in size (a tie goes to the larger), growing
 * it if needed; with an empty pool, open a new object.
 */
export const greedyInOrder: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-in-order',
  approach: 'shared-objects',
  title: 'Greedy (in order)',
  citation: 'Lee et al. 2019, "On-Device Neural Net Inference with Mobile GPUs"',
  complexity: 'n log n',
  ordersByFirstUse: true,
  plan(problem, options) {
    const { objectIds, objectSizes } = inFirstUseOrder(withAlignedSizes(problem, options), (records) => {
      const ids: number[] = [];
      const sizes: number[] = [];
      const pool = new FreePool();
      const inUse = new ObjectsInUse();
      for (const record of records) {
        inUse.releaseBefore(record.first, (id) => pool.add(sizes[id], id));
        let id: number;
        if (pool.size === 0) {
          id = sizes.push(record.size) - 1;
        } else {
          id = pool.takeClosest(record.size);
          sizes[id] = Math.max(sizes[id], record.size);
        }
        ids.push(id);
        inUse.use(id, record.last);
      }
      return { objectIds: ids, objectSizes: sizes };
    });
    return sharedObjectsPlan(objectIds, objectSizes);
  },
};

/** Free objects sorted by (size, id). */
class FreePool {
  private readonly sizes: number[] = [];
  private readonly ids: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  private lowerBound(size: number, id: number): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sizes[mid] < size || (this.sizes[mid] === size && this.ids[mid] < id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(size: number, id: number): void {
    const at = this.lowerBound(size, id);
    this.sizes.splice(at, 0, size);
    this.ids.splice(at, 0, id);
  }

  /** Removes and returns the object closest in size (see the strategy's comment). */
  takeClosest(tensorSize: number): number {
    const atLeast = this.lowerBound(tensorSize, 0);
    let best = atLeast < this.ids.length ? atLeast : -1;
    if (atLeast > 0) {
      const smaller = atLeast - 1;
      // Strictly less waste is needed to prefer the smaller object.
      if (best < 0 || tensorSize - this.sizes[smaller] < this.sizes[best] - tensorSize) best = smaller;
    }
    const id = this.ids[best];
    this.sizes.splice(best, 1);
    this.ids.splice(best, 1);
    return id;
  }
}
