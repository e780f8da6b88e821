/**
 * A segment tree over time points [0, points) with "add v on [l, r]" and "max on
 * [l, r]", both O(log points). Sweeps over lifetimes (live bytes, live counts) use it.
 */
export class RangeAddMaxTree {
  private readonly size: number;
  private readonly max: Float64Array;
  private readonly pending: Float64Array;

  constructor(points: number) {
    let size = 1;
    while (size < Math.max(1, points)) size *= 2;
    this.size = size;
    this.max = new Float64Array(2 * size);
    this.pending = new Float64Array(2 * size);
  }

  add(left: number, right: number, value: number): void {
    this.addIn(1, 0, this.size - 1, left, right, value);
  }

  rangeMax(left: number, right: number): number {
    return this.maxIn(1, 0, this.size - 1, left, right);
  }

  globalMax(): number {
    return this.max[1];
  }

  private addIn(node: number, lo: number, hi: number, left: number, right: number, value: number): void {
    if (right < lo || hi < left) return;
    if (left <= lo && hi <= right) {
      this.max[node] += value;
      this.pending[node] += value;
      return;
    }
    const mid = (lo + hi) >>> 1;
    this.addIn(2 * node, lo, mid, left, right, value);
    this.addIn(2 * node + 1, mid + 1, hi, left, right, value);
    this.max[node] = Math.max(this.max[2 * node], this.max[2 * node + 1]) + this.pending[node];
  }

  private maxIn(node: number, lo: number, hi: number, left: number, right: number): number {
    if (right < lo || hi < left) return -Infinity;
    if (left <= lo && hi <= right) return this.max[node];
    const mid = (lo + hi) >>> 1;
    return Math.max(this.maxIn(2 * node, lo, mid, left, right), this.maxIn(2 * node + 1, mid + 1, hi, left, right)) + this.pending[node];
  }
}
