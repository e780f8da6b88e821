import { denseTime } from '../../../core/dense-time.ts';
import type { Problem } from '../../../core/problem.ts';

/**
 * The exact search's view of a problem. Records are renumbered by their *position* in
 * the order the search assigns them: non-increasing size, ties by first use, then
 * record index. Time is dense (dense-time.ts keeps conflicts as they were), so arrays
 * indexed by time cost memory in the number of records.
 */
export interface Instance {
  readonly n: number;
  /** `record[p]`: the problem's record index at position p. */
  readonly record: Int32Array;
  readonly size: Float64Array;
  /** Dense closed interval of the record at each position. */
  readonly first: Int32Array;
  readonly last: Int32Array;
  /** Dense time points. */
  readonly points: number;
  /**
   * Positions live at each point, ascending (so sizes non-increasing):
   * `live[liveStart[t] .. liveStart[t + 1])`.
   */
  readonly liveStart: Int32Array;
  readonly live: Int32Array;
  /** 32-bit words of a bitset over time points. */
  readonly words: number;
  /** `remaining[d * words ..]`: the points covered by some record at position >= d. */
  readonly remaining: Uint32Array;
}

export function makeInstance(problem: Problem): Instance {
  const { records } = problem;
  const n = records.length;
  const byPosition = records.map((_, i) => i).sort((a, b) => records[b].size - records[a].size || records[a].first - records[b].first || a - b);
  const dense = denseTime(records);
  const points = dense.points;
  const record = Int32Array.from(byPosition);
  const size = Float64Array.from(byPosition, (i) => records[i].size);
  const first = Int32Array.from(byPosition, (i) => dense.first[i]);
  const last = Int32Array.from(byPosition, (i) => dense.last[i]);

  const liveStart = new Int32Array(points + 1);
  for (let p = 0; p < n; p++) for (let t = first[p]; t <= last[p]; t++) liveStart[t + 1]++;
  for (let t = 0; t < points; t++) liveStart[t + 1] += liveStart[t];
  const live = new Int32Array(liveStart[points]);
  const fill = liveStart.slice(0, points);
  // Positions ascend in the outer loop, so every point's list comes out ascending.
  for (let p = 0; p < n; p++) for (let t = first[p]; t <= last[p]; t++) live[fill[t]++] = p;

  const words = Math.max(1, Math.ceil(points / 32));
  const remaining = new Uint32Array((n + 1) * words);
  for (let p = n - 1; p >= 0; p--) {
    remaining.copyWithin(p * words, (p + 1) * words, (p + 2) * words);
    for (let t = first[p]; t <= last[p]; t++) remaining[p * words + (t >>> 5)] |= 1 << (t & 31);
  }
  return { n, record, size, first, last, points, liveStart, live, words, remaining };
}
