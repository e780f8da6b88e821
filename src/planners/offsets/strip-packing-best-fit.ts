import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { denseTime } from '../../core/dense-time.ts';
import { MinHeap } from '../../core/min-heap.ts';
import { offsetsPlan, type OffsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { lifetime } from '../../core/records.ts';
import type { OffsetsPlanner, PlannerOptions } from '../planner.ts';

/** Which record goes first among those of equal lifetime (no public code fixes it). */
export type EqualLifetimes = 'larger-first' | 'smaller-first';

/**
 * Strip Packing Best-fit (Sekiyama et al. 2018, after Burke et al. 2004): offsets as
 * strip packing with time fixed. Keep a skyline of segments over time; take the lowest
 * segment (earliest on ties); among unplaced records whose whole lifetime lies inside
 * it, place the one with the longest lifetime at the segment's height; if none fits, raise
 * the segment to its lower neighbour and merge. No public code exists; this follows the
 * paper's description. Its tie rule is ours: among equal lifetimes the larger record goes
 * first (then the first in record order); `offsets/strip-packing-best-fit-smaller-first`
 * is the other choice, which the tie-order study shows beside it (on BlazeFace the two
 * rules give 1769472 and 1376256 bytes).
 */
export const stripPackingBestFit = stripPackingBestFitWith('larger-first');

/** The same strategy with the smaller record first among equal lifetimes. */
export const stripPackingBestFitSmallerFirst = stripPackingBestFitWith('smaller-first');

function stripPackingBestFitWith(equalLifetimes: EqualLifetimes): OffsetsPlanner {
  const larger = equalLifetimes === 'larger-first';
  return {
    id: larger ? 'offsets/strip-packing-best-fit' : 'offsets/strip-packing-best-fit-smaller-first',
    approach: 'offsets',
    title: larger ? 'Strip Packing Best-fit' : 'Strip Packing Best-fit, smaller first on equal lifetimes (variant)',
    citation: 'Sekiyama et al. 2018, "Profile-guided memory optimization for deep neural networks"',
    complexity: 'n^2',
    plan: (problem, options) => planStripPacking(problem, options, larger),
  };
}

function planStripPacking(problem: Problem, options: PlannerOptions | undefined, largerFirst: boolean): OffsetsPlan {
  const alignment = checkAlignment(options?.alignment);
  const { records } = problem;
  const n = records.length;
  const offsets = new Float64Array(n);
  if (n === 0) return offsetsPlan(problem, offsets);
  const dense = denseTime(records);

  // Records by dense first use; `nextUnplaced` skips placed ones (path-halving links).
  const byFirst = records.map((_, i) => i).sort((a, b) => dense.first[a] - dense.first[b] || a - b);
  const positionOf = new Int32Array(n);
  byFirst.forEach((i, k) => {
    positionOf[i] = k;
  });
  const firstPosition = new Int32Array(dense.points + 1).fill(n);
  for (let k = n - 1; k >= 0; k--) firstPosition[dense.first[byFirst[k]]] = k;
  for (let t = dense.points - 1; t >= 0; t--) firstPosition[t] = Math.min(firstPosition[t], firstPosition[t + 1]);
  const skip = new Int32Array(n + 1).map((_, k) => k);
  const nextUnplaced = (k: number): number => {
    while (skip[k] !== k) {
      skip[k] = skip[skip[k]];
      k = skip[k];
    }
    return k;
  };

  const segments = new Segments();
  const lowest = new MinHeap<{ height: number; start: number; id: number; version: number }>((a, b) => a.height < b.height || (a.height === b.height && a.start < b.start));
  const offer = (id: number): void => {
    lowest.push({ height: segments.height[id], start: segments.start[id], id, version: segments.version[id] });
  };
  offer(segments.create(0, dense.points - 1, 0, -1, -1));

  for (let placedCount = 0; placedCount < n; ) {
    const top = lowest.pop();
    if (top === undefined) throw new Error('strip packing: the skyline emptied before every record was placed.');
    const s = top.id;
    if (!segments.alive[s] || segments.version[s] !== top.version) continue;
    const start = segments.start[s];
    const end = segments.end[s];
    let best = -1;
    for (let k = nextUnplaced(firstPosition[start]); k < n && dense.first[byFirst[k]] <= end; k = nextUnplaced(k + 1)) {
      const i = byFirst[k];
      if (dense.last[i] > end) continue;
      if (
        best < 0 ||
        lifetime(records[i]) > lifetime(records[best]) ||
        (lifetime(records[i]) === lifetime(records[best]) &&
          ((largerFirst ? records[i].size > records[best].size : records[i].size < records[best].size) || (records[i].size === records[best].size && i < best)))
      ) {
        best = i;
      }
    }
    if (best < 0) {
      for (const id of segments.raiseToLowerNeighbour(s)) offer(id);
      continue;
    }
    const offset = alignUp(segments.height[s], alignment);
    offsets[best] = offset;
    placedCount++;
    skip[positionOf[best]] = positionOf[best] + 1;
    for (const id of segments.cover(s, dense.first[best], dense.last[best], offset + records[best].size)) offer(id);
  }
  return offsetsPlan(problem, offsets);
}

/** The skyline: segments of constant height over time, as a doubly linked list. */
class Segments {
  readonly start: number[] = [];
  readonly end: number[] = [];
  readonly height: number[] = [];
  readonly previous: number[] = [];
  readonly next: number[] = [];
  readonly alive: boolean[] = [];
  readonly version: number[] = [];

  create(start: number, end: number, height: number, previous: number, next: number): number {
    const id = this.start.length;
    this.start.push(start);
    this.end.push(end);
    this.height.push(height);
    this.previous.push(previous);
    this.next.push(next);
    this.alive.push(true);
    this.version.push(0);
    if (previous >= 0) this.next[previous] = id;
    if (next >= 0) this.previous[next] = id;
    return id;
  }

  /** Covers [first, last] of segment s with a block topping at `top`; returns the segments that changed. */
  cover(s: number, first: number, last: number, top: number): number[] {
    const { start, end, height } = this;
    let left = this.previous[s];
    let right = this.next[s];
    this.alive[s] = false;
    if (start[s] < first) left = this.create(start[s], first - 1, height[s], left, right);
    if (last < end[s]) right = this.create(last + 1, end[s], height[s], left, right);
    const middle = this.create(first, last, top, left, right);
    return this.mergeAround(middle);
  }

  /** Raises s to its lower neighbour's height and merges them. */
  raiseToLowerNeighbour(s: number): number[] {
    const left = this.previous[s];
    const right = this.next[s];
    const target = Math.min(left >= 0 ? this.height[left] : Infinity, right >= 0 ? this.height[right] : Infinity);
    if (target === Infinity) throw new Error('strip packing: a lone segment fits no record.');
    this.height[s] = target;
    this.version[s]++;
    return this.mergeAround(s);
  }

  /** Merges s with neighbours of the same height; returns the segment left standing. */
  private mergeAround(s: number): number[] {
    for (const side of ['previous', 'next'] as const) {
      const other = this[side][s];
      if (other < 0 || this.height[other] !== this.height[s]) continue;
      this.start[s] = Math.min(this.start[s], this.start[other]);
      this.end[s] = Math.max(this.end[s], this.end[other]);
      this.alive[other] = false;
      const beyond = this[side][other];
      this[side][s] = beyond;
      if (beyond >= 0) this[side === 'previous' ? 'next' : 'previous'][beyond] = s;
    }
    this.version[s]++;
    const changed = [s];
    for (const neighbour of [this.previous[s], this.next[s]]) if (neighbour >= 0) changed.push(neighbour);
    return changed;
  }
}
