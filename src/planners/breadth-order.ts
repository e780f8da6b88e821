import { denseTime } from '../core/dense-time.ts';
import type { Problem } from '../core/problem.ts';
import { mulberry32 } from '../core/synthetic.ts';

/**
 * The order of the paper's Greedy by Breadth (Algorithm 1), shared by its two
 * variants: operators in non-increasing breadth (ties: earlier operator first, as
 * TFLite's stable sort leaves them, or with `tieSeed` in a seeded random order), and at
 * each operator the tensors of its profile not yet visited, in non-increasing size (ties:
 * record order). Calls `visit` once per record, at the widest operator where it is live.
 *
 * Only operators where some record starts are ranked: any other operator's profile is
 * contained in the profile of the latest start before it, which is at least as broad
 * and comes first, so the visiting order is the same as ranking all operators. Live
 * records are found by a stabbing query on a segment tree that drops visited records as it
 * meets them, so the whole walk is O(n log n).
 */
export function visitByBreadth(problem: Problem, visit: (record: number) => void, tieSeed?: number): void {
  const { records } = problem;
  const dense = denseTime(records);
  let size = 1;
  while (size < Math.max(1, dense.points)) size *= 2;
  // Each record sits in the O(log T) tree nodes that tile its interval.
  const nodeRecords: number[][] = [];
  const tile = (node: number, lo: number, hi: number, first: number, last: number, record: number): void => {
    if (last < lo || hi < first) return;
    if (first <= lo && hi <= last) {
      (nodeRecords[node] ??= []).push(record);
      return;
    }
    const mid = (lo + hi) >>> 1;
    tile(2 * node, lo, mid, first, last, record);
    tile(2 * node + 1, mid + 1, hi, first, last, record);
  };
  const breadth = new Float64Array(dense.points + 1);
  const isStart = new Uint8Array(dense.points);
  records.forEach((r, i) => {
    tile(1, 0, size - 1, dense.first[i], dense.last[i], i);
    breadth[dense.first[i]] += r.size;
    breadth[dense.last[i] + 1] -= r.size;
    isStart[dense.first[i]] = 1;
  });
  const starts: number[] = [];
  for (let t = 0, live = 0; t < dense.points; t++) {
    live += breadth[t];
    breadth[t] = live;
    if (isStart[t]) starts.push(t);
  }
  const rank = new Float64Array(dense.points);
  if (tieSeed === undefined) rank.forEach((_, t) => (rank[t] = t));
  else rank.set(Array.from({ length: dense.points }, mulberry32(tieSeed)));
  starts.sort((a, b) => breadth[b] - breadth[a] || rank[a] - rank[b] || a - b);

  const visited = new Uint8Array(records.length);
  const profile: number[] = [];
  for (const t of starts) {
    profile.length = 0;
    for (let node = 1, lo = 0, hi = size - 1; ; ) {
      const list = nodeRecords[node];
      if (list !== undefined) {
        let kept = 0;
        for (const record of list) {
          if (visited[record]) continue;
          list[kept++] = record;
          profile.push(record);
        }
        list.length = kept;
      }
      if (lo === hi) break;
      const mid = (lo + hi) >>> 1;
      if (t <= mid) {
        node = 2 * node;
        hi = mid;
      } else {
        node = 2 * node + 1;
        lo = mid + 1;
      }
    }
    profile.sort((a, b) => records[b].size - records[a].size || a - b);
    for (const record of profile) {
      visited[record] = 1;
      visit(record);
    }
  }
}
