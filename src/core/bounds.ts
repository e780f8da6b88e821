import { denseTime } from './dense-time.ts';
import type { Problem } from './problem.ts';
import { maxOperatorBreadth } from './profiles.ts';
import { RangeAddMaxTree } from './range-add-max-tree.ts';

/**
 * Positional maxima (paper, section 2): entry i is the largest i-th-largest size over
 * all operator profiles. Computed without sorting any profile: P[i] >= s iff at some
 * operator at least i + 1 live records have size >= s, so adding records by
 * non-increasing size to a live-count tree, each new maximum count M after the records of
 * size s fills P up to M with s. O(n log n).
 */
export function positionalMaxima(problem: Problem): number[] {
  const dense = denseTime(problem.records);
  const counts = new RangeAddMaxTree(dense.points);
  const order = problem.records.map((_, i) => i).sort((a, b) => problem.records[b].size - problem.records[a].size);
  const maxima: number[] = [];
  for (let k = 0; k < order.length; ) {
    const size = problem.records[order[k]].size;
    for (; k < order.length && problem.records[order[k]].size === size; k++) {
      counts.add(dense.first[order[k]], dense.last[order[k]], 1);
    }
    while (maxima.length < counts.globalMax()) maxima.push(size);
  }
  return maxima;
}

export interface LowerBounds {
  /** Offset Calculation: no arena is smaller than the largest operator breadth. */
  readonly offsets: number;
  /** Shared Objects: no object set is smaller than the sum of positional maxima. */
  readonly sharedObjects: number;
}

export function lowerBounds(problem: Problem): LowerBounds {
  let sharedObjects = 0;
  for (const size of positionalMaxima(problem)) sharedObjects += size;
  return { offsets: maxOperatorBreadth(problem), sharedObjects };
}
