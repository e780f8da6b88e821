/**
 * The skyline of a search as a segment tree over time points, for problems too large
 * to sweep at every node: range assignment of heights, points switched between
 * "records remain here" (covered) and not, the lowest covered point (leftmost on ties)
 * and the first point after a given one that is higher than a height, each in O(log points).
 */
export class FloorTree {
  private readonly size: number;
  /** Highest height in the node's range (covered or not). */
  private readonly high: Float64Array;
  /** Lowest height among covered points of the range (Infinity: none covered). */
  private readonly low: Float64Array;
  /** Leftmost covered point with that lowest height (-1: none). */
  private readonly lowAt: Int32Array;
  /** Leftmost covered point of the range (-1: none). */
  private readonly firstCovered: Int32Array;
  /** Pending assignment of the whole range (NaN: none). */
  private readonly pending: Float64Array;

  constructor(private readonly points: number) {
    let size = 1;
    while (size < Math.max(1, points)) size *= 2;
    this.size = size;
    this.high = new Float64Array(2 * size);
    this.low = new Float64Array(2 * size).fill(Infinity);
    this.lowAt = new Int32Array(2 * size).fill(-1);
    this.firstCovered = new Int32Array(2 * size).fill(-1);
    this.pending = new Float64Array(2 * size).fill(NaN);
  }

  /** Sets every point to height 0 and marks `covered` points. */
  reset(covered: (t: number) => boolean): void {
    const { size } = this;
    this.high.fill(0);
    this.pending.fill(NaN);
    for (let t = 0; t < size; t++) {
      const v = size + t;
      const on = t < this.points && covered(t);
      this.low[v] = on ? 0 : Infinity;
      this.lowAt[v] = on ? t : -1;
      this.firstCovered[v] = on ? t : -1;
    }
    for (let v = size - 1; v >= 1; v--) this.pull(v);
  }

  /** The lowest covered point, leftmost on ties (-1 when none is covered). */
  lowest(): number {
    return this.lowAt[1];
  }

  assign(left: number, right: number, height: number): void {
    if (left > right) return;
    this.assignIn(1, 0, this.size - 1, left, right, height);
  }

  setCovered(t: number, covered: boolean, height: number): void {
    this.pointIn(1, 0, this.size - 1, t, covered, height);
  }

  /** The first point at or after `from` higher than `height` (covered or not); `points` when none is. */
  firstAbove(from: number, height: number): number {
    if (from >= this.points) return this.points;
    const t = this.firstAboveIn(1, 0, this.size - 1, from, height);
    return t < 0 || t >= this.points ? this.points : t;
  }

  private apply(v: number, height: number): void {
    this.high[v] = height;
    this.pending[v] = height;
    const f = this.firstCovered[v];
    this.low[v] = f >= 0 ? height : Infinity;
    this.lowAt[v] = f;
  }

  private push(v: number): void {
    const h = this.pending[v];
    if (h === h) {
      this.apply(2 * v, h);
      this.apply(2 * v + 1, h);
      this.pending[v] = NaN;
    }
  }

  private pull(v: number): void {
    const l = 2 * v;
    const r = l + 1;
    this.high[v] = Math.max(this.high[l], this.high[r]);
    if (this.low[r] < this.low[l]) {
      this.low[v] = this.low[r];
      this.lowAt[v] = this.lowAt[r];
    } else {
      this.low[v] = this.low[l];
      this.lowAt[v] = this.lowAt[l];
    }
    this.firstCovered[v] = this.firstCovered[l] >= 0 ? this.firstCovered[l] : this.firstCovered[r];
  }

  private assignIn(v: number, lo: number, hi: number, left: number, right: number, height: number): void {
    if (right < lo || hi < left) return;
    if (left <= lo && hi <= right) {
      this.apply(v, height);
      return;
    }
    this.push(v);
    const mid = (lo + hi) >> 1;
    this.assignIn(2 * v, lo, mid, left, right, height);
    this.assignIn(2 * v + 1, mid + 1, hi, left, right, height);
    this.pull(v);
  }

  private pointIn(v: number, lo: number, hi: number, t: number, covered: boolean, height: number): void {
    if (lo === hi) {
      this.high[v] = height;
      this.low[v] = covered ? height : Infinity;
      this.lowAt[v] = covered ? t : -1;
      this.firstCovered[v] = covered ? t : -1;
      return;
    }
    this.push(v);
    const mid = (lo + hi) >> 1;
    if (t <= mid) this.pointIn(2 * v, lo, mid, t, covered, height);
    else this.pointIn(2 * v + 1, mid + 1, hi, t, covered, height);
    this.pull(v);
  }

  private firstAboveIn(v: number, lo: number, hi: number, from: number, height: number): number {
    if (hi < from || this.high[v] <= height) return -1;
    if (lo === hi) return lo;
    this.push(v);
    const mid = (lo + hi) >> 1;
    const left = this.firstAboveIn(2 * v, lo, mid, from, height);
    return left >= 0 ? left : this.firstAboveIn(2 * v + 1, mid + 1, hi, from, height);
  }
}
