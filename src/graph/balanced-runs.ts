/**
 * Splits a sequence of weights into min(k, n) contiguous, non-empty runs, balanced:
 *
 * 1. the largest sum of a run is the least any such split achieves (B);
 * 2. among the splits that reach B, the one whose run sums are the most even (the least sum
 *    of squares); on a tie, the one whose cuts come first.
 *
 * Deterministic, and a function of the weights alone: a list already cut into its runs
 * and laid end to end is cut the same way again (which schedule.ts relies on). Equal
 * weights split evenly; a heavy item gets a run of its own and the light ones share the
 * other runs evenly. Returns the runs as [start, end) index pairs, in order; none for no
 * weights. Time O(r n w) for r runs of n items, w the most items a run under B can hold.
 */
export function balancedRuns(weights: readonly number[], k: number): [number, number][] {
  if (!Number.isSafeInteger(k) || k < 1) throw new Error(`balancedRuns: k must be a whole number >= 1, got ${k}.`);
  for (const w of weights) if (!Number.isSafeInteger(w) || w < 0) throw new Error(`balancedRuns: weights must be whole numbers >= 0, got ${w}.`);
  const n = weights.length;
  if (n === 0) return [];
  const runs = Math.min(k, n);
  const bound = leastLargestRun(weights, runs);
  const prefix = [0];
  for (const w of weights) prefix.push(prefix[prefix.length - 1] + w);
  // Squares in units of the bound, so that byte counts of any size stay exact enough.
  const square = (from: number, to: number): number => (bound === 0 ? 0 : ((prefix[to] - prefix[from]) / bound) ** 2);
  // cost[j][i]: least sum of squares splitting items [0, i) into j runs under the bound; start[j][i]: where its last run starts.
  const cost: number[][] = [new Array<number>(n + 1).fill(Infinity)];
  cost[0][0] = 0;
  const start: number[][] = [[]];
  for (let j = 1; j <= runs; j++) {
    cost.push(new Array<number>(n + 1).fill(Infinity));
    start.push(new Array<number>(n + 1).fill(-1));
    for (let i = j; i <= n - (runs - j); i++) {
      // The last run is [c, i): scanned from the earliest c whose run fits, so a tie keeps the earlier cut.
      let c = i - 1;
      while (c > j - 1 && prefix[i] - prefix[c - 1] <= bound) c--;
      for (; c <= i - 1; c++) {
        if (prefix[i] - prefix[c] > bound || cost[j - 1][c] === Infinity) continue;
        const total = cost[j - 1][c] + square(c, i);
        if (total < cost[j][i] - 1e-12 * Math.max(1, total)) {
          cost[j][i] = total;
          start[j][i] = c;
        }
      }
    }
  }
  const result: [number, number][] = [];
  for (let j = runs, end = n; j >= 1; j--) {
    const begin = start[j][end];
    result.unshift([begin, end]);
    end = begin;
  }
  return result;
}

/** The least largest run sum over splits into at most `runs` contiguous runs (binary search over the bound). */
function leastLargestRun(weights: readonly number[], runs: number): number {
  let lo = Math.max(...weights);
  let hi = weights.reduce((sum, w) => sum + w, 0);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (runsNeeded(weights, mid) <= runs) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Runs a greedy split needs when no run may exceed `bound` (the fewest possible; every weight <= bound). */
function runsNeeded(weights: readonly number[], bound: number): number {
  let count = 1;
  let sum = 0;
  for (const w of weights) {
    if (sum + w > bound) {
      count++;
      sum = 0;
    }
    sum += w;
  }
  return count;
}
