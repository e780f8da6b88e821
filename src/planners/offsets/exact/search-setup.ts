/**
 * What both decision procedures (skyline-search.ts, lowest-valley-search.ts) build before
 * their first node: the breadth still to place per point and the records grouped by first
 * point in rank order; and the keys of their states, which both compute the same way so
 * that a state one of them found to fail is known to the other through the part's memo
 * (placed set: Zobrist keys of core/zobrist.ts; skyline: an XOR of point hashes); and what
 * they share move by move: the fit order of moves, the test of a move, the growth of a
 * move stack.
 */

/**
 * One part of an offsets problem, ready for the search: `n` records over `points` dense
 * time points, each with its occupied size (the size rounded up to the alignment: the
 * next record above it starts there) and its real size (what must fit under the arena's
 * top). Offsets the search gives are sums of occupied sizes, so they stay aligned.
 */
export interface PackingInstance {
  readonly n: number;
  readonly points: number;
  readonly first: Int32Array;
  readonly last: Int32Array;
  readonly occupied: Float64Array;
  readonly real: Float64Array;
  readonly alignment: number;
}

/**
 * How well a record placed at the left edge of a valley at height h fits it, lower is
 * better: 0 when it ends where the valley ends (at `end`) and its top meets the height of
 * a neighbour of the valley or the roof, 1 when it only ends there, 2 when its top only
 * meets, 3 otherwise. It is the best-fit rule of skyline packing heuristics (Burke,
 * Kendall and Whitwell 2004: fill the lowest gap with the piece that fits its width
 * best): a placement that fills the valley's width or levels it with a neighbour leaves
 * fewer and wider valleys. As a move order it finds tight packings sooner than the rank
 * alone on the planted cuts of 1000 records.
 */
export function fitClass(last: number, top: number, end: number, left: number, right: number, roof: number): number {
  return (last === end ? 0 : 2) + (top === left || top === right || top === roof ? 0 : 1);
}

/** Sorts moves[from, to) by `classOf` (fitClass), stably: the rank order stays within a class. */
export function sortByFit(moves: Int32Array, from: number, to: number, classOf: (u: number) => number): void {
  for (let i = from + 1; i < to; i++) {
    const u = moves[i];
    const c = classOf(u);
    let j = i;
    for (; j > from && classOf(moves[j - 1]) > c; j--) moves[j] = moves[j - 1];
    moves[j] = u;
  }
}

/** Every top (offset + occupied size) is at most the capacity rounded up to the alignment. */
export function roofOf(capacity: number, alignment: number): number {
  return alignment > 1 ? Math.ceil(capacity / alignment) * alignment : capacity;
}

/**
 * Occupied bytes still to place at each point (all of them, before the first node), or
 * undefined when the capacity is plainly too small: a record taller than it, or a point
 * whose breadth passes the roof.
 */
export function breadthToPlace(instance: PackingInstance, capacity: number): Float64Array | undefined {
  const { n, points, first, last, occupied, real, alignment } = instance;
  const roof = roofOf(capacity, alignment);
  const rest = new Float64Array(points);
  const delta = new Float64Array(points + 1);
  for (let i = 0; i < n; i++) {
    if (real[i] > capacity) return undefined;
    delta[first[i]] += occupied[i];
    delta[last[i] + 1] -= occupied[i];
  }
  let live = 0;
  for (let t = 0; t < points; t++) {
    live += delta[t];
    rest[t] = live;
    if (live > roof) return undefined;
  }
  return rest;
}

export interface RecordsByFirst {
  /** Records of first point t are byFirst[startsAt[t] .. startsAt[t + 1] - 1]. */
  readonly startsAt: Int32Array;
  /** Record indices by first point, in rank order within a point (ties by index). */
  readonly byFirst: Int32Array;
  /** 1 where byFirst[k] cannot be told from byFirst[k - 1] (same lifetime and sizes): placed in list order only. */
  readonly sameAsPrevious: Uint8Array;
}

export function recordsByFirst(instance: PackingInstance, rank: Int32Array): RecordsByFirst {
  const { n, points, first, last, occupied, real } = instance;
  const startsAt = new Int32Array(points + 1);
  for (let i = 0; i < n; i++) startsAt[first[i] + 1]++;
  for (let t = 0; t < points; t++) startsAt[t + 1] += startsAt[t];
  const byFirst = new Int32Array(n);
  const fill = startsAt.slice(0, points);
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => rank[x] - rank[y] || x - y);
  for (const i of order) byFirst[fill[first[i]]++] = i;
  const sameAsPrevious = new Uint8Array(n);
  for (let k = 1; k < n; k++) {
    const i = byFirst[k];
    const j = byFirst[k - 1];
    if (first[i] === first[j] && last[i] === last[j] && occupied[i] === occupied[j] && real[i] === real[j]) sameAsPrevious[k] = 1;
  }
  return { startsAt, byFirst, sameAsPrevious };
}

/**
 * The records not placed yet, by first point, for counting them: each point's stretch of
 * byFirst with the waiting records in front (`records[startsAt[t] .. waitingEnd[t] - 1]`).
 * A placement swaps the record behind the waiting ones; its undo takes it back in by
 * moving the end, which is right only when undos come in the reverse order of placements,
 * as a depth-first search undoes. The order within a stretch is lost, so it gives counts
 * and sets, never an order of moves (skyline-search.ts counts each valley's moves with it;
 * before, the count walked every record of the valley's points, placed or not).
 */
export class WaitingByFirst {
  /** A copy of byFirst, permuted within each point's stretch. */
  readonly records: Int32Array;
  /** Per point t: the end of its waiting records in `records`. */
  readonly waitingEnd: Int32Array;
  private readonly position: Int32Array;

  constructor(byFirstRecords: RecordsByFirst) {
    const { startsAt, byFirst } = byFirstRecords;
    this.records = byFirst.slice();
    this.waitingEnd = startsAt.slice(1);
    this.position = new Int32Array(byFirst.length);
    for (let k = 0; k < byFirst.length; k++) this.position[byFirst[k]] = k;
  }

  /** Record i, of first point t, is placed. */
  place(i: number, t: number): void {
    const end = --this.waitingEnd[t];
    const k = this.position[i];
    const j = this.records[end];
    this.records[k] = j;
    this.position[j] = k;
    this.records[end] = i;
    this.position[i] = end;
  }

  /** The last record placed of first point t is taken back. */
  unplace(t: number): void {
    this.waitingEnd[t]++;
  }
}

/**
 * The test both searches put a record to before placing it at height h on a valley where
 * it starts: byFirst[k] is not placed yet, is not a copy whose earlier twin (byFirst[k - 1])
 * still waits (copies go in list order, so that their permutations are searched once), and
 * its top stays within the capacity. What else a move must meet (the valley's extent, the
 * records still to place beside it) differs between the engines and stays with them.
 */
export function movableTest(records: RecordsByFirst, placed: Uint8Array, real: Float64Array, capacity: number): (k: number, h: number) => boolean {
  const { byFirst, sameAsPrevious } = records;
  return (k, h) => {
    const u = byFirst[k];
    return !placed[u] && !(sameAsPrevious[k] && !placed[byFirst[k - 1]]) && h + real[u] <= capacity;
  };
}

/** `moves` with room at index `top`: a copy of twice the length (at least 16) when it is full (moves are pushed on the searches' hot paths, so the stack grows by doubling, not per move). */
export function withRoom(moves: Int32Array<ArrayBuffer>, top: number): Int32Array<ArrayBuffer> {
  if (top < moves.length) return moves;
  const grown = new Int32Array(Math.max(16, 2 * moves.length));
  grown.set(moves);
  return grown;
}

/** Seed of the searches' Zobrist keys (core/zobrist.ts). */
export const SEARCH_SEED = 0x2545f491;

/**
 * The skyline half of a state's key: the XOR, over the points where records remain, of a
 * hash of "point t has skyline height v" (two 32-bit lanes, c and d). An XOR, so that a
 * search updates it for the points a move changes instead of rehashing every point at
 * every node, and both searches keep it the same way, so their states share a memo.
 */
export class SkylineKey {
  c = 0;
  d = 0;

  /** The key before the first node: every point where records remain, at height 0. */
  constructor(rest: Float64Array) {
    for (let t = 0; t < rest.length; t++) if (rest[t] > 0) this.toggle(t, 0);
  }

  /** Point t, at height v, enters the key (records remain there again) or leaves it (none remains). */
  toggle(t: number, v: number): void {
    this.c ^= hashC(t, v);
    this.d ^= hashD(t, v);
  }

  /** Point t, where records remain, goes from height `was` to `now`. */
  change(t: number, was: number, now: number): void {
    this.c ^= hashC(t, was) ^ hashC(t, now);
    this.d ^= hashD(t, was) ^ hashD(t, now);
  }
}

function hashC(t: number, v: number): number {
  let z = Math.imul((t + 1) ^ (v | 0), 0x85ebca6b) ^ Math.imul(((v / 4294967296) | 0) + 0x27d4eb2d, 0xc2b2ae35);
  z ^= z >>> 16;
  z = Math.imul(z, 0x7feb352d);
  return z ^ (z >>> 15);
}

function hashD(t: number, v: number): number {
  let z = Math.imul((v | 0) + Math.imul(t, 0x9e3779b1), 0x846ca68b) ^ Math.imul((v / 4294967296) | 0, 0x165667b1);
  z ^= z >>> 15;
  z = Math.imul(z, 0x2c1b3c6d);
  return z ^ (z >>> 12);
}
