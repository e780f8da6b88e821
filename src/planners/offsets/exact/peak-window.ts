import { bySizeDescending } from '../../first-use-order.ts';
import { createGapSearch, type FitRule } from '../gap-search.ts';
import type { Budget } from './budget.ts';
import { searchLowestValley } from './lowest-valley-search.ts';
import { arenaOf, type Order, type PartState } from './parts.ts';
import { breadthToPlace } from './search-setup.ts';
import type { PackingInstance } from './search-setup.ts';
import type { SearchOutcome } from './skyline-search.ts';

/**
 * A construction for large parts whose pressure gathers at one peak, as in the training
 * and transformer traces: the breadth meets the bound at one point (or a few close ones)
 * and stays well below it elsewhere. On such a part the search spends its nodes on the
 * bottom layers far from the peak, and a stacking at the peak that wastes a few bytes
 * was decided thousands of nodes up the path, where backtracking never gets back to. So
 * the peak is decided first, then the rest around it:
 *
 * 1. Window: the points where the breadth is highest, widened by `k` points on each side.
 *    The records live in the window, cut to it, make a small packing problem with the
 *    part's breadth; the lowest-valley search packs it under the capacity within a few
 *    nodes per record. Records that enter the window together are stacked in one of a
 *    few orders (by the part's latest end first, by where the incumbent put them, by
 *    lifetime, by size): the order at the window's edge is what the rest must live with.
 * 2. Completion: every other record is placed around the window's records (held where the
 *    window put them), largest first, each in a gap that the records placed so far leave
 *    free over its lifetime (Algorithm 3's gap search: the smallest gap, or the lowest).
 *
 * A try packs the part under the capacity or fails; it never proves anything. Tries go
 * from narrow windows to wide (0, 4, 16, 64, ... points on each side of the peak points,
 * while the window holds at most half the part's records), each order, each fit; the
 * first packing under the capacity wins. Node limits, not time, bound each window's
 * search, so the tries are the same on every machine (the budget only cuts them short).
 */
export function packAroundPeak(state: PartState, capacity: number, budget: Budget): SearchOutcome {
  const forward = state.instances[0];
  const { n, points, first, last, occupied } = forward;
  const peak = peakPoints(forward);
  const bySize = bySizeDescending(state.problem.records);
  for (let k = 0; ; k = k === 0 ? WIDEN_FROM : WIDEN_BY * k) {
    const from = Math.max(0, peak.from - k);
    const to = Math.min(points - 1, peak.to + k);
    const inWindow: number[] = [];
    for (let i = 0; i < n; i++) if (first[i] <= to && last[i] >= from) inWindow.push(i);
    if (2 * inWindow.length > n) break;
    const window: PackingInstance = {
      ...forward,
      n: inWindow.length,
      points: to - from + 1,
      first: Int32Array.from(inWindow, (i) => Math.max(first[i], from) - from),
      last: Int32Array.from(inWindow, (i) => Math.min(last[i], to) - from),
      occupied: Float64Array.from(inWindow, (i) => occupied[i]),
      real: Float64Array.from(inWindow, (i) => forward.real[i]),
    };
    for (const order of WINDOW_ORDERS) {
      if (budget.spent()) return { status: 'stopped' };
      const partRank = state.ranks.get(order)!;
      const rank = Int32Array.from(inWindow, (i) => partRank[i]);
      const packed = searchLowestValley(window, capacity, budget.child(4 * inWindow.length + 1000), { rank });
      if (packed.status !== 'found') continue;
      for (const rule of FIT_RULES) {
        const offsets = complete(state, inWindow, packed.offsets, bySize, capacity, rule);
        if (offsets !== undefined) return { status: 'found', offsets, arena: arenaOf(offsets, forward.real) };
      }
    }
    if (from === 0 && to === points - 1) break;
  }
  return { status: 'stopped' };
}

/** Window widths: the peak points alone, then 4, 16, 64, ... points more on each side. */
const WIDEN_FROM = 4;
const WIDEN_BY = 4;
const WINDOW_ORDERS: readonly Order[] = ['end', 'incumbent', 'life', 'size'];
const FIT_RULES: readonly FitRule[] = ['best', 'first'];

/** The first and last point where the breadth (in occupied sizes) is highest. */
function peakPoints(instance: PackingInstance): { from: number; to: number } {
  const breadth = breadthToPlace(instance, Infinity)!;
  let from = 0;
  let to = 0;
  for (let t = 1; t < breadth.length; t++) {
    if (breadth[t] > breadth[from]) from = to = t;
    else if (breadth[t] === breadth[from]) to = t;
  }
  return { from, to };
}

/**
 * Offsets of the whole part: the window's records where the window put them, every other
 * record by the gap search in `order`; undefined as soon as one ends above the capacity.
 */
function complete(state: PartState, inWindow: readonly number[], windowOffsets: Float64Array, order: readonly number[], capacity: number, rule: FitRule): Float64Array | undefined {
  const { real } = state.instances[0];
  const search = createGapSearch(state.problem, state.instances[0].alignment, state.instances[0]);
  const offsets = new Float64Array(real.length).fill(NaN);
  inWindow.forEach((i, j) => {
    offsets[i] = windowOffsets[j];
    search.place(i, offsets[i]);
  });
  for (const i of order) {
    if (!Number.isNaN(offsets[i])) continue;
    const offset = search.fit(i, rule);
    if (offset + real[i] > capacity) return undefined;
    offsets[i] = offset;
    search.place(i, offset);
  }
  return offsets;
}
