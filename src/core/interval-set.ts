/**
 * A set of pairwise disjoint closed intervals kept sorted by start: the schedule of
 * one shared object. Lookups are O(log m) by binary search; this is the "interval tree
 * per object" that takes Greedy by Breadth from O(k n^2) to O(k n log n) in the paper.
 */
export class DisjointIntervalSet {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  get size(): number {
    return this.starts.length;
  }

  /** Index of the first interval starting at or after `first`. */
  private lowerBound(first: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] < first) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** True iff [first, last] intersects no interval of the set. */
  isFree(first: number, last: number): boolean {
    const at = this.lowerBound(first);
    if (at < this.starts.length && this.starts[at] <= last) return false;
    return !(at > 0 && this.ends[at - 1] >= first);
  }

  /** Adds [first, last]; the caller has checked `isFree`. */
  insert(first: number, last: number): void {
    const at = this.lowerBound(first);
    this.starts.splice(at, 0, first);
    this.ends.splice(at, 0, last);
  }
}
