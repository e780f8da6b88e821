import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { denseTime, type DenseTime } from '../../core/dense-time.ts';
import { offsetsPlan, type OffsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import type { PlannerOptions } from '../planner.ts';

/**
 * The placement step of the paper's Algorithm 3, shared by the offsets strategies that
 * use it: among the records already placed whose usage intervals intersect the new
 * record's, walked in offset order, take the smallest gap that fits (the lowest such
 * on ties); if none fits, go right above the highest of them. With alignment, a placed
 * record is taken to end at its aligned end, so every offset stays aligned.
 */
export interface GapSearch {
  /**
   * The offset Algorithm 3 gives `record` against the records placed so far ('best': the
   * smallest gap that fits); with 'first', the lowest gap that fits instead.
   */
  fit(record: number, rule?: FitRule): number;
  place(record: number, offset: number): void;
}

/** Which gap a record takes among those that fit: the smallest (Algorithm 3) or the lowest. */
export type FitRule = 'best' | 'first';

/** Places records one at a time, in the order `visit` calls `place`, each by the gap search. */
export function placeByGapSearch(problem: Problem, options: PlannerOptions | undefined, visit: (place: (record: number) => void) => void): OffsetsPlan {
  const search = createGapSearch(problem, checkAlignment(options?.alignment));
  const offsets = new Float64Array(problem.records.length);
  visit((record) => {
    offsets[record] = search.fit(record);
    search.place(record, offsets[record]);
  });
  return offsetsPlan(problem, offsets);
}

/** The records' times renumbered densely (core/dense-time.ts), for callers that have them already. */
export type DenseLifetimes = Pick<DenseTime, 'first' | 'last' | 'points'>;

export function createGapSearch(problem: Problem, alignment: number, dense?: DenseLifetimes): GapSearch {
  // The fast index reasons about the union of occupied memory, which is the same as
  // TFLite's walk only when no record is empty: a zero-byte record splits a gap there.
  return problem.records.some((r) => r.size === 0) ? new OffsetOrderScan(problem, alignment) : new OccupancyIndex(problem, alignment, dense);
}

/**
 * Algorithm 3 exactly as written (and as TFLite codes it): the placed records in offset
 * order (ties: placement order), walked in full for each new record. O(n^2).
 */
export class OffsetOrderScan implements GapSearch {
  private readonly placed: number[] = [];
  private readonly offsets: Float64Array;

  constructor(
    private readonly problem: Problem,
    private readonly alignment: number,
  ) {
    this.offsets = new Float64Array(problem.records.length);
  }

  fit(record: number, rule: FitRule = 'best'): number {
    const records = this.problem.records;
    const { first, last, size } = records[record];
    let bestGap = Infinity;
    let best = -1;
    let previousEnd = 0;
    for (const other of this.placed) {
      const placed = records[other];
      if (placed.last < first || placed.first > last) continue;
      const offset = this.offsets[other];
      if (offset >= previousEnd) {
        const gap = offset - previousEnd;
        if (gap >= size && gap < bestGap) {
          if (rule === 'first') return previousEnd;
          bestGap = gap;
          best = previousEnd;
        }
      }
      previousEnd = Math.max(previousEnd, alignUp(offset + placed.size, this.alignment));
    }
    return best >= 0 ? best : previousEnd;
  }

  place(record: number, offset: number): void {
    this.offsets[record] = offset;
    // After every record at the same offset or below: placement order breaks ties.
    let lo = 0;
    let hi = this.placed.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[this.placed[mid]] <= offset) lo = mid + 1;
      else hi = mid;
    }
    this.placed.splice(lo, 0, record);
  }
}

/**
 * The same answers as OffsetOrderScan when every record has bytes, without walking all
 * placed records. Walking placed records in offset order and keeping the running top,
 * the gaps met are exactly the gaps of the UNION of their memory intervals, so the
 * index keeps unions: a segment tree over (dense) time where node v holds
 *   tag(v): the union of records whose interval tiles v (canonical nodes), and
 *   sub(v): the union of tag(u) over u in v's subtree.
 * The records intersecting [first, last] are exactly those in sub(c) for the canonical
 * nodes c of [first, last] plus those in tag(a) for their proper ancestors a; the answer
 * comes from the union of those O(log T) lists. Unions of a greedy packing stay short
 * (a few intervals), so a query costs about O(log T) list merges.
 */
export class OccupancyIndex implements GapSearch {
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  private readonly leaves: number;
  /** Sorted disjoint intervals as [start0, end0, start1, end1, ...]; touching ones merged. */
  private readonly tag: (number[] | undefined)[];
  private readonly sub: (number[] | undefined)[];
  private readonly collected: number[][] = [];
  private union = new Float64Array(1024);
  private scratch = new Float64Array(1024);

  constructor(
    private readonly problem: Problem,
    private readonly alignment: number,
    dense: DenseLifetimes = denseTime(problem.records),
  ) {
    this.first = dense.first;
    this.last = dense.last;
    let leaves = 1;
    while (leaves < Math.max(1, dense.points)) leaves *= 2;
    this.leaves = leaves;
    this.tag = new Array(2 * leaves);
    this.sub = new Array(2 * leaves);
  }

  fit(record: number, rule: FitRule = 'best'): number {
    const size = this.problem.records[record].size;
    this.collected.length = 0;
    this.collect(1, 0, this.leaves - 1, this.first[record], this.last[record]);
    const length = this.unionOfCollected();
    const union = this.union;
    let bestGap = Infinity;
    let best = -1;
    let previousEnd = 0;
    for (let k = 0; k < length; k += 2) {
      const gap = union[k] - previousEnd;
      if (gap >= size && gap < bestGap) {
        if (rule === 'first') return previousEnd;
        bestGap = gap;
        best = previousEnd;
      }
      previousEnd = union[k + 1];
    }
    return best >= 0 ? best : previousEnd;
  }

  /** Merges the collected lists into `this.union`; returns its used length. */
  private unionOfCollected(): number {
    let total = 0;
    for (const list of this.collected) total += list.length;
    if (this.union.length < total) {
      this.union = new Float64Array(2 * total);
      this.scratch = new Float64Array(2 * total);
    }
    let length = 0;
    for (const list of this.collected) {
      // Merge `union[0, length)` with `list` into `scratch`, then swap the two buffers.
      const a = this.union;
      const out = this.scratch;
      let i = 0;
      let j = 0;
      let n = 0;
      while (i < length || j < list.length) {
        let start: number;
        let end: number;
        if (j >= list.length || (i < length && a[i] <= list[j])) {
          start = a[i];
          end = a[i + 1];
          i += 2;
        } else {
          start = list[j];
          end = list[j + 1];
          j += 2;
        }
        if (n > 0 && start <= out[n - 1]) {
          if (end > out[n - 1]) out[n - 1] = end;
        } else {
          out[n++] = start;
          out[n++] = end;
        }
      }
      this.union = out;
      this.scratch = a;
      length = n;
    }
    return length;
  }

  place(record: number, offset: number): void {
    const end = alignUp(offset + this.problem.records[record].size, this.alignment);
    this.insert(1, 0, this.leaves - 1, this.first[record], this.last[record], offset, end);
  }

  private insert(node: number, lo: number, hi: number, first: number, last: number, start: number, end: number): void {
    if (last < lo || hi < first) return;
    this.sub[node] = addInterval(this.sub[node], start, end);
    if (first <= lo && hi <= last) {
      this.tag[node] = addInterval(this.tag[node], start, end);
      return;
    }
    const mid = (lo + hi) >>> 1;
    this.insert(2 * node, lo, mid, first, last, start, end);
    this.insert(2 * node + 1, mid + 1, hi, first, last, start, end);
  }

  private collect(node: number, lo: number, hi: number, first: number, last: number): void {
    if (last < lo || hi < first) return;
    if (first <= lo && hi <= last) {
      const list = this.sub[node];
      if (list !== undefined) this.collected.push(list);
      return;
    }
    const list = this.tag[node];
    if (list !== undefined) this.collected.push(list);
    const mid = (lo + hi) >>> 1;
    this.collect(2 * node, lo, mid, first, last);
    this.collect(2 * node + 1, mid + 1, hi, first, last);
  }
}

/** Adds [start, end) to a sorted union, merging what it overlaps or touches. */
function addInterval(list: number[] | undefined, start: number, end: number): number[] {
  if (list === undefined) return [start, end];
  // First interval whose end reaches start.
  let lo = 0;
  let hi = list.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[2 * mid + 1] < start) lo = mid + 1;
    else hi = mid;
  }
  let k = lo;
  let mergedStart = start;
  let mergedEnd = end;
  while (2 * k < list.length && list[2 * k] <= end) {
    mergedStart = Math.min(mergedStart, list[2 * k]);
    mergedEnd = Math.max(mergedEnd, list[2 * k + 1]);
    k++;
  }
  list.splice(2 * lo, 2 * (k - lo), mergedStart, mergedEnd);
  return list;
}
