import { alignUp } from '../../core/alignment.ts';

/**
 * The free memory of a fixed buffer at every operator (FlexNN's "XY plane": time on one
 * axis, addresses on the other): per step, the free byte ranges [start, end), sorted and
 * disjoint. A record placed over steps [from, to] takes its bytes out of every one of
 * them. Offsets handed out are multiples of the alignment; sizes are not rounded (an
 * arena ends where its highest record ends, as everywhere in this project).
 *
 * `mark` and `rollback` undo everything taken since the mark: the planner tries a layer
 * with preloading and, when the layer fails, tries it again without.
 */
export class FreeSpace {
  /** free[t] = [start0, end0, start1, end1, ...]. */
  private readonly free: number[][];
  /** Steps changed since the mark, with their lists as they were; undefined: no mark. */
  private saved: Map<number, number[]> | undefined;

  constructor(
    steps: number,
    readonly capacity: number,
    private readonly alignment: number,
  ) {
    this.free = Array.from({ length: steps }, () => (capacity > 0 ? [0, capacity] : []));
  }

  /** Is [offset, offset + size) free at every step of [from, to]? */
  isFree(from: number, to: number, offset: number, size: number): boolean {
    if (size === 0) return offset >= 0 && offset <= this.capacity;
    for (let t = from; t <= to; t++) if (!containsRange(this.free[t], offset, offset + size)) return false;
    return true;
  }

  /** The free ranges common to every step of [from, to]. */
  commonFree(from: number, to: number): number[] {
    let common = this.free[from].slice();
    for (let t = from + 1; t <= to && common.length > 0; t++) common = intersect(common, this.free[t]);
    return common;
  }

  /** The lowest aligned offset where `size` bytes fit inside `ranges`, or -1. */
  lowestFit(ranges: readonly number[], size: number): number {
    for (let k = 0; k < ranges.length; k += 2) {
      const start = alignUp(ranges[k], this.alignment);
      if (start + size <= ranges[k + 1]) return start;
    }
    return size === 0 ? 0 : -1;
  }

  /** The free ranges of step t and an earlier step's, intersected (for searching back in time). */
  narrow(ranges: readonly number[], t: number): number[] {
    return intersect(ranges, this.free[t]);
  }

  /** Takes [offset, offset + size) at every step of [from, to]; the caller has checked it is free. */
  take(from: number, to: number, offset: number, size: number): void {
    if (size === 0) return;
    for (let t = from; t <= to; t++) {
      if (this.saved !== undefined && !this.saved.has(t)) this.saved.set(t, this.free[t].slice());
      this.free[t] = subtract(this.free[t], offset, offset + size);
    }
  }

  mark(): void {
    this.saved = new Map();
  }

  rollback(): void {
    for (const [t, list] of this.saved ?? []) this.free[t] = list;
    this.saved = new Map();
  }
}

/** Does one range of the sorted list hold [start, end)? */
function containsRange(list: readonly number[], start: number, end: number): boolean {
  for (let k = 0; k < list.length; k += 2) {
    if (list[k] <= start) {
      if (end <= list[k + 1]) return true;
    } else {
      return false;
    }
  }
  return false;
}

/** The intersection of two sorted lists of disjoint ranges. */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i], b[j]);
    const end = Math.min(a[i + 1], b[j + 1]);
    if (start < end) out.push(start, end);
    if (a[i + 1] < b[j + 1]) i += 2;
    else j += 2;
  }
  return out;
}

/** The list without [start, end). */
function subtract(list: readonly number[], start: number, end: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < list.length; k += 2) {
    const s = list[k];
    const e = list[k + 1];
    if (e <= start || s >= end) {
      out.push(s, e);
      continue;
    }
    if (s < start) out.push(s, start);
    if (end < e) out.push(end, e);
  }
  return out;
}
