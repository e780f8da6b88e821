import { denseTime } from './dense-time.ts';
import type { Problem } from './problem.ts';

/**
 * Operator profile (paper, section 2): the records whose usage interval contains the
 * operator, as record indices in non-increasing size, ties in record order (TFLite's
 * stable sort; the test vectors fix this order).
 */
export function operatorProfile(problem: Problem, operator: number): number[] {
  const members: number[] = [];
  problem.records.forEach((r, i) => {
    if (r.first <= operator && operator <= r.last) members.push(i);
  });
  return sortBySizeDescending(problem, members);
}

/** Every operator's profile. O(sum of lifetimes): meant for networks, not long traces. */
export function operatorProfiles(problem: Problem): number[][] {
  const profiles: number[][] = Array.from({ length: problem.operatorCount }, () => []);
  problem.records.forEach((r, i) => {
    for (let op = r.first; op <= r.last; op++) profiles[op].push(i);
  });
  return profiles.map((members) => sortBySizeDescending(problem, members));
}

/** Operator breadth: the sum of the sizes in the operator's profile. */
export function operatorBreadths(problem: Problem): Float64Array {
  const delta = new Float64Array(problem.operatorCount + 1);
  for (const r of problem.records) {
    delta[r.first] += r.size;
    delta[r.last + 1] -= r.size;
  }
  const breadths = new Float64Array(problem.operatorCount);
  let live = 0;
  for (let op = 0; op < problem.operatorCount; op++) {
    live += delta[op];
    breadths[op] = live;
  }
  return breadths;
}

/**
 * The operators at which some record starts, with their breadths, in operator order.
 * Every operator's profile is contained in the profile of the latest such operator
 * at or before it (a live record started there or earlier), so algorithms that rank
 * operators by profile only need these: O(n log n) however sparse time is.
 */
export function startOperators(problem: Problem): { operators: number[]; breadths: number[] } {
  const dense = denseTime(problem.records);
  const delta = new Float64Array(dense.points + 1);
  const isStart = new Uint8Array(dense.points);
  problem.records.forEach((r, i) => {
    delta[dense.first[i]] += r.size;
    delta[dense.last[i] + 1] -= r.size;
    isStart[dense.first[i]] = 1;
  });
  const operators: number[] = [];
  const breadths: number[] = [];
  let live = 0;
  for (let t = 0; t < dense.points; t++) {
    live += delta[t];
    if (isStart[t]) {
      operators.push(dense.times[t]);
      breadths.push(live);
    }
  }
  return { operators, breadths };
}

/** Max operator breadth without materialising every operator: a sweep over starts. */
export function maxOperatorBreadth(problem: Problem): number {
  let best = 0;
  for (const breadth of startOperators(problem).breadths) best = Math.max(best, breadth);
  return best;
}

function sortBySizeDescending(problem: Problem, members: number[]): number[] {
  // Array.prototype.sort is stable, so equal sizes keep record order.
  return members.sort((a, b) => problem.records[b].size - problem.records[a].size);
}
