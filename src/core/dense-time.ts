import type { TensorUsageRecord } from './records.ts';

/**
 * Usage intervals renumbered onto the distinct values of `first` and `last`, in order.
 * The renumbering is monotone, so two records conflict after it iff they did before;
 * algorithms that index arrays by time use it so that sparse traces (times up to 2^53)
 * cost memory in the number of records, not in the span of time.
 */
export interface DenseTime {
  readonly first: Int32Array;
  readonly last: Int32Array;
  /** Number of distinct time points; dense times lie in [0, points). */
  readonly points: number;
  /** `times[k]` is the original time of dense point k. */
  readonly times: Float64Array;
}

export function denseTime(records: readonly TensorUsageRecord[]): DenseTime {
  const n = records.length;
  const all = new Float64Array(2 * n);
  records.forEach((r, i) => {
    all[2 * i] = r.first;
    all[2 * i + 1] = r.last;
  });
  all.sort();
  let points = 0;
  for (let i = 0; i < all.length; i++) {
    if (i === 0 || all[i] !== all[i - 1]) all[points++] = all[i];
  }
  const times = all.slice(0, points);
  const rank = (value: number): number => {
    let lo = 0;
    let hi = points - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const first = new Int32Array(n);
  const last = new Int32Array(n);
  records.forEach((r, i) => {
    first[i] = rank(r.first);
    last[i] = rank(r.last);
  });
  return { first, last, points, times };
}
