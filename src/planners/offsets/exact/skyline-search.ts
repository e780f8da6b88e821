import type { Budget } from './budget.ts';
import { type PackingInstance, breadthToPlace, fitClass, movableTest, recordsByFirst, roofOf, SEARCH_SEED, SkylineKey, sortByFit, WaitingByFirst, withRoom } from './search-setup.ts';
import { RunBreaks } from './run-breaks.ts';
import { zobristKeys } from '../../../core/zobrist.ts';

export interface SearchOptions {
  /** Which record to try first among the moves of a node (lower first). */
  readonly rank: Int32Array;
  /**
   * Order the records that start at the valley's left edge by how they fit it
   * (search-setup.ts's fitClass) before the rank. Default false.
   */
  readonly fitFirst?: boolean;
  /** States known to fail at this capacity or above; grows as the search proves more. */
  readonly memo?: FailedStates;
}

export type SearchOutcome = { readonly status: 'found'; readonly offsets: Float64Array; readonly arena: number } | { readonly status: 'infeasible' } | { readonly status: 'stopped' };

/**
 * Partial packings that have no completion under some capacity: a state is the set of
 * placed records and the skyline where records remain to be placed, kept as a 128-bit
 * hash in an open-addressing table. A state that fails under a capacity fails under
 * every smaller one, so the set serves any search at that capacity or below;
 * `forCapacity` hands back a set fit for `capacity` (emptied when it is larger).
 */
export class FailedStates {
  private keys: Int32Array;
  private used = 0;
  private capacity = -Infinity;

  /** Beyond `limit` states the set stops growing (it stays sound, only less useful). */
  constructor(private readonly limit = 1 << 21) {
    this.keys = new Int32Array(4 * 1024);
  }

  forCapacity(capacity: number): FailedStates {
    if (capacity > this.capacity) {
      this.keys = new Int32Array(4 * 1024);
      this.used = 0;
      this.capacity = capacity;
    }
    return this;
  }

  /** Slot of the key, or of the empty slot where it would go. A key is never all zeros. */
  private slot(a: number, b: number, c: number, d: number): number {
    const mask = this.keys.length / 4 - 1;
    let k = (Math.imul(a ^ (c >>> 7), 0x9e3779b1) ^ d) & mask;
    const keys = this.keys;
    for (;;) {
      const p = 4 * k;
      if ((keys[p] === a && keys[p + 1] === b && keys[p + 2] === c && keys[p + 3] === d) || (keys[p] | keys[p + 1] | keys[p + 2] | keys[p + 3]) === 0) return p;
      k = (k + 1) & mask;
    }
  }

  has(a: number, b: number, c: number, d: number): boolean {
    const p = this.slot(a, b, c, d);
    return (this.keys[p] | this.keys[p + 1] | this.keys[p + 2] | this.keys[p + 3]) !== 0;
  }

  add(a: number, b: number, c: number, d: number): void {
    if (this.used >= this.limit) return;
    if (2 * (this.used + 1) > this.keys.length / 4) {
      const old = this.keys;
      this.keys = new Int32Array(old.length * 2);
      for (let p = 0; p < old.length; p += 4) {
        if ((old[p] | old[p + 1] | old[p + 2] | old[p + 3]) === 0) continue;
        const q = this.slot(old[p], old[p + 1], old[p + 2], old[p + 3]);
        this.keys[q] = old[p];
        this.keys[q + 1] = old[p + 1];
        this.keys[q + 2] = old[p + 2];
        this.keys[q + 3] = old[p + 3];
      }
    }
    const p = this.slot(a, b, c, d);
    if ((this.keys[p] | this.keys[p + 1] | this.keys[p + 2] | this.keys[p + 3]) !== 0) return;
    this.keys[p] = a;
    this.keys[p + 1] = b;
    this.keys[p + 2] = c;
    this.keys[p + 3] = d | (a === 0 && b === 0 && c === 0 && d === 0 ? 1 : 0);
    this.used++;
  }
}

/**
 * Decides whether the part packs under `capacity` (every record's offset + real size at
 * most `capacity`), by depth-first branch and bound over canonical packings.
 *
 * Canonical packings. Push every record down until it rests on a record it conflicts
 * with (or on 0); this never raises the arena. The search builds such a packing bottom
 * up and keeps its skyline over time (the highest top placed so far at each point). At
 * every point where records remain, everything still to place lies above the skyline.
 *
 * Branching. Take a valley: a maximal run [a, b] of points at one height h whose
 * neighbours are higher (or have nothing left to place). Either some record still to
 * place sits at offset h in the run, and then its lifetime lies inside [a, b] (beside
 * the run it would cut into what is placed there), or none does, and the run is waste
 * up to its lower neighbour: a record above it rests on a record, and the lowest such
 * record would sit at h. Records that sit at h in the run are placed left to right, so
 * the branch that places record u first (u starting at c) also declares [a, c - 1]
 * empty at h: waste up to the lower of its neighbours (the skyline left of a, and u's
 * top). Every packing has exactly one branch sequence. The valley branched on is the one
 * with the fewest moves (ties: lowest, then leftmost): a valley with no move ends the
 * node, one with a single move is a forced step. Records that cannot be told apart
 * (same lifetime and sizes) are placed in index order.
 *
 * Bound. At every point t the records still to place that live at t lie above the
 * skyline, so skyline(t) + (their occupied sizes) must stay within the capacity; only
 * waste changes that sum, so it is checked where waste is declared.
 *
 * Memo. A node whose moves all failed is recorded in `memo`; meeting the same state
 * again (another order of the same placements, or the same state reached by
 * lowest-valley-search.ts, which keys states the same way) fails at once. States are told
 * apart by 128-bit hashes; a collision could only make the search miss a packing (never accept a
 * wrong one; an "infeasible" answer, and so an optimality claim, would then be wrong),
 * with odds far below one in 10^15 at the sizes this runs.
 */
export function searchPacking(instance: PackingInstance, capacity: number, budget: Budget, options: SearchOptions): SearchOutcome {
  const { n, points, first, last, occupied, real, alignment } = instance;
  const { rank } = options;
  const fitFirst = options.fitFirst === true;
  const memo = options.memo?.forCapacity(capacity);
  const roof = roofOf(capacity, alignment);
  const sky = new Float64Array(points);
  const rest = breadthToPlace(instance, capacity);
  if (rest === undefined) return { status: 'infeasible' };
  if (n === 0) return { status: 'found', offsets: new Float64Array(0), arena: 0 };

  // Records by first point, in rank order; identical records that are neighbours there
  // are placed in list order.
  const byFirstRecords = recordsByFirst(instance, rank);
  const { startsAt, byFirst } = byFirstRecords;

  const placed = new Uint8Array(n);
  const waiting = new WaitingByFirst(byFirstRecords);
  const { records: waitingRecords, waitingEnd } = waiting;
  const movable = movableTest(byFirstRecords, placed, real, capacity);
  const offsets = new Float64Array(n);
  let placedCount = 0;
  // Points where records remain, doubly linked (point t is node t + 1; 0 and points + 1
  // are the ends), so that the sweep of a node skips the points already filled. Points
  // leave in a placement and come back in its undo, in reverse order (dancing links).
  const nextCovered = new Int32Array(points + 2);
  const prevCovered = new Int32Array(points + 2);
  {
    let prev = 0;
    for (let t = 0; t < points; t++) {
      if (rest[t] === 0) continue;
      nextCovered[prev] = t + 1;
      prevCovered[t + 1] = prev;
      prev = t + 1;
    }
    nextCovered[prev] = points + 1;
    prevCovered[points + 1] = prev;
  }

  const breaks = new RunBreaks(sky, rest);

  // State key for the memo: Zobrist keys of the placed set, and the skyline hashes of
  // search-setup.ts over the points where records remain, kept up to date move by move.
  const { a: zobristA, b: zobristB } = zobristKeys(n, SEARCH_SEED);
  let placedA = 0;
  let placedB = 0;
  const key = new SkylineKey(rest);
  /** Sets the skyline over [from, to], points where records remain, to `now`. */
  const raise = (from: number, to: number, now: number): void => {
    for (let t = from; t <= to; t++) {
      const was = sky[t];
      key.change(t, was, now);
      sky[t] = now;
    }
    breaks.refreshRange(from, to + 1);
  };

  // The DFS stack. A frame is a node: its valley [a, b] at height h, its moves (records,
  // or -1 for "the valley is waste") in pool[start, end), the next move, the move in force.
  // Frames on one path: at most n placements, and waste moves. A waste move merges its run
  // into a neighbour (one run fewer); a placement splits a run into at most three (two
  // more). So a path has at most points + 2n waste moves: 3n + points in all.
  const depthMax = 3 * n + points + 2;
  const frameA = new Int32Array(depthMax);
  const frameB = new Int32Array(depthMax);
  const frameH = new Float64Array(depthMax);
  const frameLeft = new Float64Array(depthMax);
  const frameRaise = new Float64Array(depthMax);
  const frameStart = new Int32Array(depthMax);
  const frameEnd = new Int32Array(depthMax);
  const frameNext = new Int32Array(depthMax);
  const frameMove = new Int32Array(depthMax);
  // The state key of each frame (4 ints), or zeros for a frame not to remember.
  const frameKey = new Int32Array(4 * depthMax);
  let pool = new Int32Array(1024);
  let poolTop = 0;
  let depth = 0;

  const push = (value: number): void => {
    pool = withRoom(pool, poolTop);
    pool[poolTop++] = value;
  };

  /**
   * Moves of the valley [a, b] at height h (left/right: the skyline beside it, Infinity
   * where nothing is left to place): records that start in the run and end inside it,
   * then -1 (the run is waste) when there is a neighbour to rise to. Stops counting at
   * `limit`; pushes the moves when `emit`.
   */
  const movesOf = (a: number, b: number, h: number, left: number, right: number, limit: number, emit: boolean): number => {
    let count = 0;
    let restMax = 0; // max of rest over [a, t - 1]
    for (let t = a; t <= b; t++) {
      for (let k = startsAt[t]; k < startsAt[t + 1]; k++) {
        const u = byFirst[k];
        if (last[u] > b || !movable(k, h)) continue;
        if (t > a && restMax + Math.min(left, h + occupied[u]) > roof) continue;
        if (emit) push(u);
        if (++count >= limit) return count;
      }
      if (emit && fitFirst && t === a) sortByFit(pool, poolTop - count, poolTop, (u) => fitClass(last[u], h + occupied[u], b, left, right, roof));
      if (rest[t] > restMax) restMax = rest[t];
    }
    const raise = Math.min(left, right);
    if (raise !== Infinity && restMax + raise <= roof) {
      if (emit) push(-1);
      count++;
    }
    return count;
  };

  const pushFrame = (a: number, b: number, h: number, left: number, raise: number, start: number, remember: boolean): void => {
    frameA[depth] = a;
    frameB[depth] = b;
    frameH[depth] = h;
    frameLeft[depth] = left;
    frameRaise[depth] = raise;
    frameStart[depth] = start;
    frameEnd[depth] = poolTop;
    frameNext[depth] = start;
    frameMove[depth] = -2;
    const p = 4 * depth;
    frameKey[p] = remember ? placedA : 0;
    frameKey[p + 1] = remember ? placedB : 0;
    frameKey[p + 2] = remember ? key.c : 0;
    frameKey[p + 3] = remember ? key.d : 0;
    depth++;
  };

  /** Opens a node: picks its valley and lists its moves (none when the state is known to fail). */
  const open = (): void => {
    if (memo !== undefined) {
      if (memo.has(placedA, placedB, key.c, key.d)) {
        pushFrame(0, 0, 0, 0, 0, poolTop, false);
        return;
      }
    }
    // Valleys in one sweep, keeping the one with the fewest moves (the records not placed
    // that start in its run and end in it, counted roughly, plus the waste move; the lower
    // on a tie): exact counting is left to the valley chosen. A count stops once it passes
    // the best so far, since that valley can no longer be chosen.
    let a = -1;
    let b = -1;
    let bestCount = Infinity;
    for (let t = nextCovered[0] - 1; t < points; ) {
      const h = sky[t];
      const e = breaks.runEnd(t);
      // Neighbours are points where records remain right beside the run (node t is point t - 1).
      const left = t > 0 && prevCovered[t + 1] === t ? sky[t - 1] : Infinity;
      const right = e + 1 < points && nextCovered[e + 1] === e + 2 ? sky[e + 1] : Infinity;
      if (left > h && right > h) {
        let count = Math.min(left, right) === Infinity ? 0 : 1;
        for (let s = t; s <= e && count <= bestCount; s++) {
          for (let k = startsAt[s]; k < waitingEnd[s]; k++) {
            const i = waitingRecords[k];
            if (last[i] <= e && h + real[i] <= capacity && ++count > bestCount) break;
          }
        }
        if (count < bestCount || (count === bestCount && h < sky[a])) {
          a = t;
          b = e;
          bestCount = count;
        }
      }
      t = nextCovered[e + 1] - 1;
    }
    const h = sky[a];
    const left = a > 0 && rest[a - 1] > 0 ? sky[a - 1] : Infinity;
    const right = b + 1 < points && rest[b + 1] > 0 ? sky[b + 1] : Infinity;
    const start = poolTop;
    if (bestCount > 0) {
      // Records by start (the least waste first), then by rank; the waste move last.
      movesOf(a, b, h, left, right, Infinity, true);
    }
    pushFrame(a, b, h, left, Math.min(left, right), start, memo !== undefined);
  };

  const undo = (d: number): void => {
    const move = frameMove[d];
    if (move === -2) return;
    const a = frameA[d];
    const h = frameH[d];
    if (move === -1) {
      raise(a, frameB[d], h);
    } else {
      raise(a, first[move] - 1, h);
      const size = occupied[move];
      const top = h + size;
      for (let t = last[move]; t >= first[move]; t--) {
        // A point no record remained at comes back into the key and the links (in the
        // reverse order of the placement's unlinking).
        if (rest[t] === 0) {
          key.toggle(t, h);
          nextCovered[prevCovered[t + 1]] = t + 1;
          prevCovered[nextCovered[t + 1]] = t + 1;
        } else {
          key.change(t, top, h);
        }
        rest[t] += size;
        sky[t] = h;
      }
      breaks.refreshRange(first[move], last[move] + 1);
      placed[move] = 0;
      waiting.unplace(first[move]);
      placedCount--;
      placedA ^= zobristA[move];
      placedB ^= zobristB[move];
    }
    frameMove[d] = -2;
  };

  const apply = (d: number, move: number): void => {
    const a = frameA[d];
    if (move === -1) {
      raise(a, frameB[d], frameRaise[d]);
    } else {
      const h = frameH[d];
      const size = occupied[move];
      const top = h + size;
      raise(a, first[move] - 1, Math.min(frameLeft[d], top));
      for (let t = first[move]; t <= last[move]; t++) {
        rest[t] -= size;
        // A point where no record remains leaves the key and the links.
        if (rest[t] === 0) {
          key.toggle(t, h);
          nextCovered[prevCovered[t + 1]] = nextCovered[t + 1];
          prevCovered[nextCovered[t + 1]] = prevCovered[t + 1];
        } else {
          key.change(t, h, top);
        }
        sky[t] = top;
      }
      breaks.refreshRange(first[move], last[move] + 1);
      placed[move] = 1;
      waiting.place(move, first[move]);
      offsets[move] = h;
      placedCount++;
      placedA ^= zobristA[move];
      placedB ^= zobristB[move];
    }
    frameMove[d] = move;
  };

  open();
  for (;;) {
    const d = depth - 1;
    undo(d);
    if (frameNext[d] === frameEnd[d]) {
      const p = 4 * d;
      if (memo !== undefined && (frameKey[p] | frameKey[p + 1] | frameKey[p + 2] | frameKey[p + 3]) !== 0) {
        memo.add(frameKey[p], frameKey[p + 1], frameKey[p + 2], frameKey[p + 3]);
      }
      poolTop = frameStart[d];
      depth--;
      if (depth === 0) return { status: 'infeasible' };
      continue;
    }
    apply(d, pool[frameNext[d]++]);
    if (placedCount === n) {
      let arena = 0;
      for (let i = 0; i < n; i++) arena = Math.max(arena, offsets[i] + real[i]);
      return { status: 'found', offsets: offsets.slice(), arena };
    }
    if (!budget.tick()) return { status: 'stopped' };
    open();
  }
}
