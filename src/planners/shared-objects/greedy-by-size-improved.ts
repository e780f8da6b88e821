import { positionalMaxima } from '../../core/bounds.ts';
import { sharedObjectsPlan } from '../../core/plans.ts';
import { withAlignedSizes, type SharedObjectsPlanner } from '../planner.ts';

/**
 * Greedy by Size Improved (paper, section 3.4), as TFLite ships it
 * (GreedyBySizeDistPriorityAssignment, the default for GPU shared objects).
 *
 * Each tensor belongs to a stage: the index of the last positional maximum at least
 * as large as it. Repeatedly, among unassigned tensors, pick the one of the earliest
 * stage, then the largest, then the one whose best object leaves the smallest idle gap
 * (operators between it and the nearest tensor already in that object), then the lowest
 * record index; put it in its best object (grown if needed) or, with none, a new one.
 * After each assignment, update the gaps of the remaining tensors to that object, or
 * drop the object for tensors that now conflict with it. O(n^2) like TFLite's.
 */
export const greedyBySizeImproved: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-by-size-improved',
  approach: 'shared-objects',
  title: 'Greedy by Size Improved',
  citation: 'Pisarchyk & Lee 2020, section 3.4 (TFLite GreedyBySizeDistPriority)',
  complexity: 'n^2',
  // A gap per (tensor, object) pair: about 10 s and 300 MB at 10k records here.
  maxRecords: 20_000,
  plan(problem, options) {
    const aligned = withAlignedSizes(problem, options);
    const { records } = aligned;
    const n = records.length;
    const maxima = positionalMaxima(aligned);
    const stage = records.map((r) => {
      let position = 0;
      while (position < maxima.length && maxima[position] >= r.size) position++;
      return position - 1;
    });
    const NONE = Infinity;
    const bestGap = new Float64Array(n).fill(NONE);
    const bestObject = new Int32Array(n).fill(-1);
    /** For each unassigned tensor: gap to every object it could still join. */
    const gaps: Map<number, number>[] = Array.from({ length: n }, () => new Map());
    const objectIds = new Array<number>(n).fill(-1);
    const objectSizes: number[] = [];

    // Stage and size never change, so the tensor picked next is always in the first
    // (stage, size) group with unassigned tensors: only that group is searched, and only
    // unassigned tensors are updated (a list compacted as tensors get assigned).
    const byPriority = records.map((_, i) => i).sort((a, b) => stage[a] - stage[b] || records[b].size - records[a].size || a - b);
    const unassigned = byPriority.slice();
    let groupStart = 0;

    for (let step = 0; step < n; step++) {
      while (objectIds[byPriority[groupStart]] >= 0) groupStart++;
      const head = byPriority[groupStart];
      let chosen = -1;
      for (let k = groupStart; k < n; k++) {
        const i = byPriority[k];
        if (stage[i] !== stage[head] || records[i].size !== records[head].size) break;
        if (objectIds[i] < 0 && (chosen < 0 || bestGap[i] < bestGap[chosen] || (bestGap[i] === bestGap[chosen] && i < chosen))) chosen = i;
      }
      const newObject = bestGap[chosen] === NONE;
      const object = newObject ? objectSizes.push(records[chosen].size) - 1 : bestObject[chosen];
      objectSizes[object] = Math.max(objectSizes[object], records[chosen].size);
      objectIds[chosen] = object;

      const placed = records[chosen];
      let kept = 0;
      for (const i of unassigned) {
        if (objectIds[i] >= 0) continue;
        unassigned[kept++] = i;
        const known = gaps[i].get(object);
        // Already ruled out: the tensor conflicts with something in this object.
        if (!newObject && known === undefined) continue;
        const r = records[i];
        const gap = r.last < placed.first ? placed.first - r.last : placed.last < r.first ? r.first - placed.last : NONE;
        if (gap === NONE) {
          if (!newObject) {
            gaps[i].delete(object);
            if (bestObject[i] === object) recomputeBest(i);
          }
        } else {
          gaps[i].set(object, known === undefined ? gap : Math.min(known, gap));
          if (gap < bestGap[i]) {
            bestGap[i] = gap;
            bestObject[i] = object;
          }
        }
      }
      unassigned.length = kept;
    }
    return sharedObjectsPlan(objectIds, objectSizes);

    function recomputeBest(i: number): void {
      bestGap[i] = NONE;
      bestObject[i] = -1;
      // Ties go to the lowest object id (TFLite leaves them to hash-map order).
      for (const [object, gap] of gaps[i]) {
        if (gap < bestGap[i] || (gap === bestGap[i] && object < bestObject[i])) {
          bestGap[i] = gap;
          bestObject[i] = object;
        }
      }
    }
  },
};
