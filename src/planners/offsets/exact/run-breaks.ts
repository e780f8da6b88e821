/**
 * Where the runs of skyline-search.ts's sweep end, as one bit per point: a run is a stretch
 * of neighbouring points where records remain (rest > 0) at one skyline height, and point t
 * breaks it (bit set) unless t and t - 1 both hold records at the same height. The sweep
 * that opens every node then jumps from a run's start to its end by a bit scan instead of
 * comparing every point with the next (a sixth of the search's time on the planted cuts
 * of 1000 records). The search refreshes the points whose height or rest it changed, and
 * the one after each; the bits read its arrays, so they are never stale after a refresh.
 */
export class RunBreaks {
  private readonly points: number;
  private readonly words: Uint32Array;

  constructor(
    private readonly sky: Float64Array,
    private readonly rest: Float64Array,
  ) {
    this.points = sky.length;
    this.words = new Uint32Array((this.points >>> 5) + 1);
    for (let t = 0; t <= this.points; t++) this.refresh(t);
  }

  /** Recomputes point t's bit from the skyline and rest (t = points is the end: always set). */
  refresh(t: number): void {
    if (t > this.points) return;
    const { sky, rest } = this;
    const joined = t > 0 && t < this.points && rest[t] > 0 && rest[t - 1] > 0 && sky[t] === sky[t - 1];
    const bit = 1 << (t & 31);
    if (joined) this.words[t >>> 5] &= ~bit;
    else this.words[t >>> 5] |= bit;
  }

  /** Recomputes the bits of points from..to (clipped to the points and the end). */
  refreshRange(from: number, to: number): void {
    const end = Math.min(to, this.points);
    for (let t = Math.max(0, from); t <= end; t++) this.refresh(t);
  }

  /** The last point of the run that starts at t (a point where records remain). */
  runEnd(t: number): number {
    const from = t + 1;
    let w = from >>> 5;
    let word = this.words[w] & (~0 << (from & 31));
    while (word === 0) word = this.words[++w];
    return (w << 5) + (31 - Math.clz32(word & -word)) - 1;
  }
}
