import type { Budget } from './budget.ts';
import { FloorTree } from './floor-tree.ts';
import { breadthToPlace, fitClass, movableTest, recordsByFirst, roofOf, SEARCH_SEED, SkylineKey, sortByFit, withRoom } from './search-setup.ts';
import { zobristKeys } from '../../../core/zobrist.ts';
import type { PackingInstance } from './search-setup.ts';
import type { FailedStates, SearchOutcome } from './skyline-search.ts';

export interface LowestValleyOptions {
  /** Which record to try first among those starting at the same point (lower first). */
  readonly rank: Int32Array;
  readonly memo?: FailedStates;
  /**
   * Order the records that start at the valley's left edge by how they fit it
   * (search-setup.ts's fitClass) before the rank; they are then listed when the node
   * opens instead of lazily. Default false.
   */
  readonly fitFirst?: boolean;
}

/**
 * The search of `searchPacking` (same canonical packings, same branching, same bound at
 * waste) specialised for large parts: it always branches on the LOWEST valley (the
 * leftmost on ties), found in a segment tree instead of a sweep, lists a node's moves
 * lazily (a dive pays only for the moves it tries), and hashes states incrementally.
 * A node then costs O(log points) plus the points its move covers, not O(points +
 * records). It gives up the fewest-moves choice of valley, which pays on small hard
 * parts; the caller picks.
 */
export function searchLowestValley(instance: PackingInstance, capacity: number, budget: Budget, options: LowestValleyOptions): SearchOutcome {
  const { n, points, first, last, occupied, real, alignment } = instance;
  const { rank } = options;
  const memo = options.memo?.forCapacity(capacity);
  const roof = roofOf(capacity, alignment);
  const sky = new Float64Array(points);
  const rest = breadthToPlace(instance, capacity);
  if (rest === undefined) return { status: 'infeasible' };
  if (n === 0) return { status: 'found', offsets: new Float64Array(0), arena: 0 };
  const tree = new FloorTree(points);
  tree.reset((t) => rest[t] > 0);

  const byFirstRecords = recordsByFirst(instance, rank);
  const { startsAt, byFirst } = byFirstRecords;

  const placed = new Uint8Array(n);
  const offsets = new Float64Array(n);
  let placedCount = 0;

  // State key: Zobrist lanes of the placed set, XOR of point hashes of the covered skyline.
  const { a: zobristA, b: zobristB } = zobristKeys(n, SEARCH_SEED);
  let placedA = 0;
  let placedB = 0;
  const key = new SkylineKey(rest);

  // Frames. Move encoding: >= 0 a record, -1 the waste move, -2 none in force.
  // Frames on one path: at most n placements, and waste moves. A waste move merges its run
  // into a neighbour (one run fewer); a placement splits a run into at most three (two
  // more). So a path has at most points + 2n waste moves: 3n + points in all.
  const depthMax = 3 * n + points + 2;
  const frameA = new Int32Array(depthMax);
  const frameH = new Float64Array(depthMax);
  const frameLeft = new Float64Array(depthMax);
  const frameT = new Int32Array(depthMax); // next start point to scan
  const frameK = new Int32Array(depthMax); // next index in byFirst at that point
  const frameRestMax = new Float64Array(depthMax); // max rest over [a, frameT - 1]
  const frameB = new Int32Array(depthMax); // end of the run once the scan passed it, else -1
  const frameRaised = new Uint8Array(depthMax); // the waste move was handed out
  const frameAbove = new Int32Array(depthMax); // first point after a higher than the valley (-1: not looked up yet)
  const frameMove = new Int32Array(depthMax);
  const frameKey = new Int32Array(4 * depthMax);
  const frameDead = new Uint8Array(depthMax);
  // With fitFirst, each node's moves at its left edge, sorted, in fitMoves[fitFrom, fitTo).
  const fitFirst = options.fitFirst === true;
  const frameFitFrom = new Int32Array(depthMax);
  const frameFitTo = new Int32Array(depthMax);
  const frameFitNext = new Int32Array(depthMax);
  let fitMoves = new Int32Array(fitFirst ? 1024 : 0);
  let fitTop = 0;
  let depth = 0;

  const open = (): void => {
    const d = depth++;
    frameMove[d] = -2;
    const p = 4 * d;
    frameKey[p] = placedA;
    frameKey[p + 1] = placedB;
    frameKey[p + 2] = key.c;
    frameKey[p + 3] = key.d;
    if (memo !== undefined && memo.has(placedA, placedB, key.c, key.d)) {
      frameDead[d] = 2; // known to fail: no moves, nothing new to remember
      return;
    }
    frameDead[d] = 0;
    const a = tree.lowest();
    frameA[d] = a;
    frameH[d] = sky[a];
    frameLeft[d] = a > 0 && rest[a - 1] > 0 ? sky[a - 1] : Infinity;
    frameT[d] = a;
    frameK[d] = startsAt[a];
    frameRestMax[d] = 0;
    frameB[d] = -1;
    frameRaised[d] = 0;
    frameAbove[d] = -1;
    if (fitFirst) listFitMoves(d);
  };

  /** Record byFirst[k] (with first point t) can sit at height h on a valley starting at t, as far as its own point goes. */
  const movable = movableTest(byFirstRecords, placed, real, capacity);

  /**
   * The moves of node d at its left edge a, sorted by fitClass (stable: rank order within
   * a class); the lazy scan then goes on from a + 1. The valley ends before the first point
   * after a that is higher (its height is the right neighbour's).
   */
  const listFitMoves = (d: number): void => {
    const a = frameA[d];
    const h = frameH[d];
    const above = tree.firstAbove(a + 1, h);
    const right = above < points ? sky[above] : Infinity;
    frameAbove[d] = above;
    frameFitFrom[d] = fitTop;
    for (let k = startsAt[a]; k < startsAt[a + 1]; k++) {
      if (!movable(k, h) || last[byFirst[k]] >= above) continue;
      fitMoves = withRoom(fitMoves, fitTop);
      fitMoves[fitTop++] = byFirst[k];
    }
    sortByFit(fitMoves, frameFitFrom[d], fitTop, (u) => fitClass(last[u], h + occupied[u], above - 1, frameLeft[d], right, roof));
    frameFitTo[d] = fitTop;
    frameFitNext[d] = frameFitFrom[d];
    frameT[d] = a + 1;
    frameK[d] = startsAt[a + 1];
    frameRestMax[d] = rest[a];
  };

  /** The node's next move, or -2 when it has none left. */
  const nextMove = (d: number): number => {
    if (frameDead[d] !== 0) return -2;
    const a = frameA[d];
    const h = frameH[d];
    const left = frameLeft[d];
    if (fitFirst && frameFitNext[d] < frameFitTo[d]) return fitMoves[frameFitNext[d]++];
    if (frameB[d] < 0) {
      let t = frameT[d];
      let k = frameK[d];
      let restMax = frameRestMax[d];
      for (; t < points; t++, k = startsAt[t]) {
        if (t > a && (rest[t] === 0 || sky[t] !== h)) break;
        for (; k < startsAt[t + 1]; k++) {
          if (!movable(k, h)) continue;
          const u = byFirst[k];
          if (t > a && restMax + Math.min(left, h + occupied[u]) > roof) continue;
          // u lies on the valley only if nothing over its lifetime is higher: every point of
          // it holds records (u at least), and those from a to t are at h, so it fits when it
          // ends before the first point after a that is higher (one lookup per node).
          if (last[u] > t) {
            if (frameAbove[d] < 0) frameAbove[d] = tree.firstAbove(a + 1, h);
            if (last[u] >= frameAbove[d]) continue;
          }
          frameT[d] = t;
          frameK[d] = k + 1;
          frameRestMax[d] = restMax;
          return u;
        }
        if (rest[t] > restMax) restMax = rest[t];
      }
      frameB[d] = t - 1;
      frameRestMax[d] = restMax;
    }
    if (frameRaised[d] === 0) {
      frameRaised[d] = 1;
      const b = frameB[d];
      const right = b + 1 < points && rest[b + 1] > 0 ? sky[b + 1] : Infinity;
      const raise = Math.min(left, right);
      if (raise !== Infinity && frameRestMax[d] + raise <= roof) return -1;
    }
    return -2;
  };

  const fillRun = (from: number, to: number, was: number, now: number): void => {
    for (let t = from; t <= to; t++) {
      sky[t] = now;
      key.change(t, was, now);
    }
    tree.assign(from, to, now);
  };

  const apply = (d: number, move: number): void => {
    const a = frameA[d];
    const h = frameH[d];
    if (move === -1) {
      const b = frameB[d];
      const right = b + 1 < points && rest[b + 1] > 0 ? sky[b + 1] : Infinity;
      fillRun(a, b, h, Math.min(frameLeft[d], right));
    } else {
      const c = first[move];
      const e = last[move];
      const size = occupied[move];
      const top = h + size;
      if (c > a) fillRun(a, c - 1, h, Math.min(frameLeft[d], top));
      tree.assign(c, e, top);
      for (let t = c; t <= e; t++) {
        sky[t] = top;
        rest[t] -= size;
        if (rest[t] === 0) {
          key.toggle(t, h);
          tree.setCovered(t, false, top);
        } else {
          key.change(t, h, top);
        }
      }
      placed[move] = 1;
      offsets[move] = h;
      placedCount++;
      placedA ^= zobristA[move];
      placedB ^= zobristB[move];
    }
    frameMove[d] = move;
  };

  const undo = (d: number): void => {
    const move = frameMove[d];
    if (move === -2) return;
    const a = frameA[d];
    const h = frameH[d];
    if (move === -1) {
      const b = frameB[d];
      fillRun(a, b, sky[a], h);
    } else {
      const c = first[move];
      const e = last[move];
      const size = occupied[move];
      const top = h + size;
      if (c > a) fillRun(a, c - 1, sky[a], h);
      for (let t = c; t <= e; t++) {
        if (rest[t] === 0) {
          key.toggle(t, h);
          tree.setCovered(t, true, h);
        } else {
          key.change(t, top, h);
        }
        rest[t] += size;
        sky[t] = h;
      }
      tree.assign(c, e, h);
      placed[move] = 0;
      placedCount--;
      placedA ^= zobristA[move];
      placedB ^= zobristB[move];
    }
    frameMove[d] = -2;
  };

  open();
  for (;;) {
    const d = depth - 1;
    undo(d);
    const move = nextMove(d);
    if (move === -2) {
      const p = 4 * d;
      if (memo !== undefined && frameDead[d] !== 2) memo.add(frameKey[p], frameKey[p + 1], frameKey[p + 2], frameKey[p + 3]);
      if (fitFirst && frameDead[d] === 0) fitTop = frameFitFrom[d];
      depth--;
      if (depth === 0) return { status: 'infeasible' };
      continue;
    }
    apply(d, move);
    if (placedCount === n) {
      let arena = 0;
      for (let i = 0; i < n; i++) arena = Math.max(arena, offsets[i] + real[i]);
      return { status: 'found', offsets: offsets.slice(), arena };
    }
    if (!budget.tick()) return { status: 'stopped' };
    open();
  }
}
