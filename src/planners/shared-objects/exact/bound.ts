import type { SearchState } from './state.ts';

/**
 * A lower bound on what the records at positions >= `depth` add to the cost of the
 * partial assignment `state`: the sizes of the new objects any completion must open.
 *
 * Why it is valid. Fix a completion and a point t. The remaining records live at t
 * (L_t) conflict pairwise, so each sits in a different object. Those that go into
 * existing objects go into objects free at t, one each, and each into an object whose
 * free gap around t contains its whole interval: the set of them is independent in the
 * transversal matroid of "records of L_t matched to free objects whose gap contains
 * them". The others (N_t) go into pairwise different new objects.
 *
 * Take B_t, the basis of that matroid the greedy picks in non-increasing size. The
 * complement of a greedy (max-weight) basis is a min-weight basis of the dual matroid,
 * and a min-weight basis is smallest position by position among all bases (Gale); N_t
 * contains the complement of some basis (the one extending L_t \ N_t). So the k-th
 * largest of N_t is at least the k-th largest of R_t = L_t \ B_t, for every k.
 *
 * A new object is as large as its largest record, and N_t's k largest records sit in k
 * different new objects, so at least k new objects have size >= the k-th largest of
 * N_t >= R_t[k]. Over all points: the k-th largest new object is at least
 * max_t R_t[k], and the new objects cost at least the sum over k of these maxima.
 * With no object open this is the paper's sum of positional maxima.
 */
export class RemainingBound {
  private readonly maxima: Float64Array;
  private readonly freeFirst: Int32Array;
  private readonly freeLast: Int32Array;
  private readonly matchOf: Int32Array;
  private readonly visited: Uint8Array;
  private readonly records: Int32Array;

  constructor(private readonly state: SearchState) {
    const capacity = state.instance.n + 1;
    this.maxima = new Float64Array(capacity);
    this.freeFirst = new Int32Array(capacity);
    this.freeLast = new Int32Array(capacity);
    this.matchOf = new Int32Array(capacity);
    this.visited = new Uint8Array(capacity);
    this.records = new Int32Array(capacity);
  }

  /** The bound for the records not yet assigned (those at positions >= depth). */
  compute(): number {
    const { state, maxima } = this;
    const { points, liveStart, live, size } = state.instance;
    let count = 0;
    for (let t = 0; t < points; t++) {
      const from = liveStart[t] + state.assignedLive[t];
      const to = liveStart[t + 1];
      // R_t is a subset of L_t, so R_t[k] <= L_t[k]: nothing to gain where L_t cannot
      // raise a maximum.
      let useful = false;
      for (let k = 0; k < to - from; k++) {
        if (k >= count || size[live[from + k]] > maxima[k]) {
          useful = true;
          break;
        }
      }
      if (!useful) continue;
      count = this.unmatchedAt(t, from, to, count);
    }
    let total = 0;
    for (let k = 0; k < count; k++) total += maxima[k];
    maxima.fill(0, 0, count);
    return total;
  }

  /** Folds R_t into the maxima; returns their new length. */
  private unmatchedAt(t: number, from: number, to: number, count: number): number {
    const { state, maxima, freeFirst, freeLast, matchOf, records } = this;
    const { points, live, size } = state.instance;
    let free = 0;
    if (state.assignedLive[t] < state.objects) {
      for (let o = 0; o < state.objects; o++) {
        const g = state.gapFirst[o * points + t];
        if (g < 0) continue;
        freeFirst[free] = g;
        freeLast[free] = state.gapLast[o * points + t];
        matchOf[free] = -1;
        free++;
      }
    }
    let matched = 0;
    let k = 0;
    for (let i = from; i < to; i++) {
      records[i - from] = live[i];
      if (matched < free) {
        this.visited.fill(0, 0, free);
        if (this.augment(i - from, free)) {
          matched++;
          continue;
        }
      }
      const s = size[live[i]];
      if (k >= count) maxima[k] = s;
      else if (s > maxima[k]) maxima[k] = s;
      k++;
    }
    return Math.max(count, k);
  }

  /** Kuhn's augmenting path from local record `r` over the free objects of this point. */
  private augment(r: number, free: number): boolean {
    const { first, last } = this.state.instance;
    const p = this.records[r];
    for (let j = 0; j < free; j++) {
      if (this.visited[j] || this.freeFirst[j] > first[p] || this.freeLast[j] < last[p]) continue;
      this.visited[j] = 1;
      if (this.matchOf[j] < 0 || this.augment(this.matchOf[j], free)) {
        this.matchOf[j] = r;
        return true;
      }
    }
    return false;
  }
}
