/**
 * A skyline over time points [0, points): the height of the memory already used at
 * each point. `place(l, r, size)` puts a block on top of the highest point of [l, r]
 * and raises all of [l, r] to its top; O(log points) per call (segment tree with
 * range max and lazy range assignment). The LeapMind planners build on it.
 */
export class Skyline {
  private readonly size: number;
  private readonly max: Float64Array;
  /** -1 = nothing pending, else the height assigned to the whole subtree. */
  private readonly assigned: Float64Array;

  constructor(points: number) {
    let size = 1;
    while (size < Math.max(1, points)) size *= 2;
    this.size = size;
    this.max = new Float64Array(2 * size);
    this.assigned = new Float64Array(2 * size).fill(-1);
  }

  /** The height a block over [left, right] must start at. */
  heightOver(left: number, right: number): number {
    return this.maxIn(1, 0, this.size - 1, left, right);
  }

  /** Places a block of `size` over [left, right]; returns its offset. */
  place(left: number, right: number, size: number, alignTo: (value: number) => number = (v) => v): number {
    const offset = alignTo(this.heightOver(left, right));
    this.assignIn(1, 0, this.size - 1, left, right, offset + size);
    return offset;
  }

  private push(node: number): void {
    const value = this.assigned[node];
    if (value < 0) return;
    this.max[2 * node] = this.assigned[2 * node] = value;
    this.max[2 * node + 1] = this.assigned[2 * node + 1] = value;
    this.assigned[node] = -1;
  }

  private assignIn(node: number, lo: number, hi: number, left: number, right: number, value: number): void {
    if (right < lo || hi < left) return;
    if (left <= lo && hi <= right) {
      this.max[node] = value;
      this.assigned[node] = value;
      return;
    }
    this.push(node);
    const mid = (lo + hi) >>> 1;
    this.assignIn(2 * node, lo, mid, left, right, value);
    this.assignIn(2 * node + 1, mid + 1, hi, left, right, value);
    this.max[node] = Math.max(this.max[2 * node], this.max[2 * node + 1]);
  }

  private maxIn(node: number, lo: number, hi: number, left: number, right: number): number {
    if (right < lo || hi < left) return 0;
    if (left <= lo && hi <= right) return this.max[node];
    this.push(node);
    const mid = (lo + hi) >>> 1;
    return Math.max(this.maxIn(2 * node, lo, mid, left, right), this.maxIn(2 * node + 1, mid + 1, hi, left, right));
  }
}
