import { RemainingBound } from './bound.ts';
import type { Instance } from './instance.ts';
import { SearchState } from './state.ts';

export interface SearchLimits {
  /** `performance.now()` past which the search stops. */
  readonly deadline: number;
  readonly nodeLimit: number;
  /** A proven bound on the optimum (the paper's); reaching it ends the search. */
  readonly lowerBound: number;
}

export interface SearchOutcome {
  /** Object of each position's record, objects numbered in opening order; undefined: nothing beat the incumbent. */
  readonly objectOf: Int32Array | undefined;
  readonly objectSizes: readonly number[];
  readonly cost: number;
  /** The search space was exhausted (or the cost met a proven bound). */
  readonly complete: boolean;
  /** A proven lower bound on the optimum. */
  readonly bound: number;
  readonly nodes: number;
}

/** Characters of keys in the table of states already seen (about 2 bytes each); past it, new states are not recorded. */
const MEMO_BUDGET = 1 << 25;
const CLOCK_EVERY = 16;

interface Child {
  readonly object: number;
  readonly bound: number;
  /** Length of the free gap the record would sit in (Infinity for a new object). */
  readonly gap: number;
}

class Stop extends Error {}

/**
 * Depth-first branch and bound over the records in non-increasing size. A record joins
 * an open object it does not conflict with (free: the object is at least as large) or
 * opens a new one (its size). Each child is bounded by RemainingBound and the children
 * are tried in order of bound. Pruning, each step argued where it happens:
 * - bound >= incumbent;
 * - a state (remaining records, multiset of object occupancies restricted to the points
 *   the remaining records cover) reached before at no greater cost;
 * - joins to objects with the same restricted occupancy lead to the same state: one;
 * - forced moves: a record no remaining record overlaps joins any free object; a free
 *   object no remaining record can touch is never worse than a new object;
 * - a greedy completion that meets a node's bound closes the node.
 * Children are tried by bound, then tightest fit, which finds good plans early.
 *
 * No decomposition by time: records in time-disjoint groups still share objects (an
 * object costs the largest record of either group), so the groups' optima do not add up
 * and the groups are searched together.
 */
export function searchSharedObjects(instance: Instance, incumbentCost: number, limits: SearchLimits): SearchOutcome {
  const { n, words, remaining, size, first, last } = instance;
  const state = new SearchState(instance);
  const remainingBound = new RemainingBound(state);
  const memo = new Map<string, number>();
  let memoChars = 0;
  let best = incumbentCost;
  let bestObjectOf: Int32Array | undefined;
  let bestSizes: number[] = [];
  let nodes = 0;
  /** Per depth: the children of the node on the current path, and which one is being explored. */
  const frontier: { children: Child[]; at: number }[] = [];
  let stoppedAtBound = Infinity;
  const undo = new Int32Array(n);
  /** The restricted key of an object no remaining record touches. */
  const untouched = '\0\0'.repeat(words);

  const rootBound = Math.max(limits.lowerBound, remainingBound.compute());
  let complete = true;
  try {
    if (best > rootBound) visit(0, 0, rootBound);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    complete = false;
  }
  if (complete) return { objectOf: bestObjectOf, objectSizes: bestSizes, cost: best, complete, bound: best, nodes };

  // Every solution not yet seen lies under the node the search stopped at or under a
  // child not yet tried on the current path; each of those bounds its own subtree.
  let bound = Math.min(best, stoppedAtBound);
  for (const level of frontier) {
    for (let k = level.at + 1; k < level.children.length; k++) bound = Math.min(bound, level.children[k].bound);
  }
  return { objectOf: bestObjectOf, objectSizes: bestSizes, cost: best, complete: best <= rootBound, bound: Math.max(rootBound, bound), nodes };

  function visit(depth: number, cost: number, nodeBound: number): void {
    if (depth === n) {
      if (cost < best) {
        best = cost;
        bestObjectOf = state.objectOf.slice();
        bestSizes = Array.from(state.objectSize.subarray(0, state.objects));
      }
      return;
    }
    if (nodes >= limits.nodeLimit || (nodes % CLOCK_EVERY === 0 && performance.now() > limits.deadline)) {
      stoppedAtBound = nodeBound;
      frontier.length = depth;
      throw new Stop();
    }
    nodes++;

    // The future depends only on the remaining records and on what each object occupies
    // of the points they cover; reaching that again at no lower cost cannot do better
    // (the earlier visit was explored fully, or pruned against a larger incumbent).
    const key = stateKey(depth);
    const seen = memo.get(key);
    if (seen !== undefined && seen <= cost) return;
    if (seen !== undefined) memo.set(key, cost);
    else if (memoChars + key.length <= MEMO_BUDGET) {
      memo.set(key, cost);
      memoChars += key.length;
    }

    // A greedy completion may improve the incumbent; one that meets this node's bound is
    // optimal for the subtree, which needs no further search.
    if (completeGreedily(depth, cost) <= nodeBound) return;

    const children = childrenOf(depth, cost, nodeBound);
    const level = { children, at: 0 };
    frontier[depth] = level;
    for (; level.at < children.length; level.at++) {
      const { object, bound } = children[level.at];
      if (bound >= best) continue;
      const opened = object === state.objects;
      state.place(depth, object);
      visit(depth + 1, opened ? cost + size[depth] : cost, bound);
      state.unplace(depth, object, opened);
      if (best <= rootBound) throw new Stop();
    }
    frontier.length = depth;
  }

  /**
   * Best fit by idle time: each remaining record joins the object whose free gap around
   * it is shortest, else opens one. Records the completion if it beats the incumbent;
   * returns its cost, or Infinity once it cannot.
   */
  function completeGreedily(depth: number, cost: number): number {
    const placed = undo;
    let count = 0;
    let total = cost;
    for (let p = depth; p < n && total < best; p++) {
      let chosen = state.objects;
      let tightest = Infinity;
      for (let o = 0; o < state.objects; o++) {
        if (!state.fits(p, o)) continue;
        const at = o * instance.points + first[p];
        const gap = state.gapLast[at] - state.gapFirst[at];
        if (gap < tightest) {
          tightest = gap;
          chosen = o;
        }
      }
      const opened = chosen === state.objects;
      if (opened) total += size[p];
      state.place(p, chosen);
      placed[count++] = opened ? -1 - chosen : chosen;
    }
    const finished = count === n - depth && total < best;
    if (finished) {
      best = total;
      bestObjectOf = state.objectOf.slice();
      bestSizes = Array.from(state.objectSize.subarray(0, state.objects));
    }
    while (count > 0) {
      const code = placed[--count];
      state.unplace(depth + count, code < 0 ? -1 - code : code, code < 0);
    }
    return finished ? total : Infinity;
  }

  function childrenOf(depth: number, cost: number, nodeBound: number): Child[] {
    const after = (depth + 1) * words;
    // Points of this record that a later record also covers.
    let touchesLater = false;
    for (let t = first[depth]; t <= last[depth]; t++) {
      if (remaining[after + (t >>> 5)] & (1 << (t & 31))) {
        touchesLater = true;
        break;
      }
    }
    const candidates: number[] = [];
    const seen = new Set<string>();
    let hasUntouched = false;
    for (let o = 0; o < state.objects; o++) {
      if (!state.fits(depth, o)) continue;
      // Nothing later overlaps this record: it changes no future, any object will do.
      if (!touchesLater) return [{ object: o, bound: nodeBound, gap: 0 }];
      const key = restrictedKey(o, depth + 1);
      if (seen.has(key)) continue;
      seen.add(key);
      if (key === untouched) hasUntouched = true;
      candidates.push(o);
    }
    // A new object holding this record leaves the same future as joining an object no
    // later record can touch, plus one more untouched object; any completion's use of
    // that extra object can open a new object instead, no larger than this record.
    if (!hasUntouched) candidates.push(state.objects);
    const children: Child[] = [];
    for (const object of candidates) {
      const opened = object === state.objects;
      state.place(depth, object);
      const childCost = opened ? cost + size[depth] : cost;
      const bound = Math.max(nodeBound, childCost + remainingBound.compute());
      state.unplace(depth, object, opened);
      const at = object * instance.points + first[depth];
      const gap = opened ? Infinity : state.gapLast[at] - state.gapFirst[at];
      if (bound < best) children.push({ object, bound, gap });
    }
    // Lowest bound first; on ties the tightest fit (as the greedy completion), the new object last.
    return children.sort((a, b) => a.bound - b.bound || a.gap - b.gap);
  }

  /** An object's occupancy restricted to the points of the records at positions >= `from`. */
  function restrictedKey(object: number, from: number): string {
    let key = '';
    for (let w = 0; w < words; w++) {
      const bits = state.occupancy[object * words + w] & remaining[from * words + w];
      key += String.fromCharCode(bits & 0xffff, bits >>> 16);
    }
    return key;
  }

  function stateKey(depth: number): string {
    const parts: string[] = [];
    for (let o = 0; o < state.objects; o++) parts.push(restrictedKey(o, depth));
    return `${depth}:${parts.sort().join('|')}`;
  }
}
