import { makeProblem, type Problem } from './problem.ts';
import type { TensorUsageRecord } from './records.ts';
import { mulberry32 } from './synthetic.ts';

/**
 * Offsets problems whose optimum is known by construction: a rectangle of memory x time
 * (HEIGHT bytes by `operatorCount` operators) is cut into n rectangles, each a record
 * (its time span the lifetime, its height the size). Every operator's breadth is then
 * exactly HEIGHT, so the max-breadth lower bound is HEIGHT, and the cut itself is a
 * packing of arena HEIGHT: the optimum is HEIGHT, and no slack is left anywhere, which is
 * what makes them hard (every byte of waste a search allows is fatal at the optimum).
 *
 * Families differ in how the rectangle is cut:
 * - `dnn`: filled with the shapes of inference tensors, each piece put on a drawn flat
 *   stretch of what is filled already, at a drawn place in it: most are activations (1 to
 *   8 operators, mostly 1 to 3; a large share of the memory each), some are long-lived
 *   tensors (skip connections: 4 to 64 operators, a few percent of the memory) and some
 *   one-operator workspaces;
 * - `skyline`: the same fill with pieces of any aspect (1 to 16 operators);
 * - `guillotine`: recursive cuts, each through a whole piece, along the piece's longer side
 *   (relative to the rectangle) with odds 3:1, so pieces come out long and thin or wide and
 *   short; the first cut goes across memory, never across time (a cut across the whole
 *   height would be a time cut, which splits the problem in two independent halves);
 * - `lanes`: memory cut into lanes of drawn heights (about 1.5 sqrt(n) of them), each cut
 *   in time into a chain of tensors, then the largest pieces cut further in memory or time
 *   (branches beside a chain): long, thin lifetimes.
 * The fills leave pieces whose floors formed before them: the canonical searches of
 * offsets/exact rebuild them fast. The cuts make floors of many pieces whose tops meet
 * exactly under a long piece, which no search rebuilds at 1000 records yet (the point of
 * the families: see docs/exact-search-notes.md).
 *
 * Deterministic for (n, seed, family) on every platform (mulberry32 only); O(n log n) but
 * for the skyline fills, which scan the operators per piece (O(n^2 / 4), 5000 records in
 * well under a second).
 */
export const PLANTED_FAMILIES = ['dnn', 'guillotine', 'skyline', 'lanes'] as const;
export type PlantedFamily = (typeof PLANTED_FAMILIES)[number];

/** Every planted problem has this optimum: 1 MiB, as MiniMalloc's benchmarks. */
export const PLANTED_HEIGHT = 1 << 20;
/**
 * Sizes are multiples of the grain (default 4 KiB: tensors of inference networks are
 * products of channel counts and spatial sizes, mostly multiples of a page). A finer grain
 * gives nearly every record a size of its own, which leaves fewer packings at the optimum
 * and makes the instances much harder (64 B: see docs/exact-search-notes.md).
 */
export const PLANTED_GRAIN = 4096;

export interface PlantedProblem {
  readonly problem: Problem;
  /** The optimal arena (bytes): PLANTED_HEIGHT. */
  readonly optimum: number;
  /** A packing at the optimum (the cut itself), per record in the problem's order. */
  readonly offsets: readonly number[];
}

/** A piece of the rectangle: operators [t0, t1] (closed), memory [y, y + h) in grains. */
interface Piece {
  t0: number;
  t1: number;
  y: number;
  h: number;
}

export function plantedProblem(n: number, seed: number, family: PlantedFamily = 'dnn', grain = PLANTED_GRAIN): PlantedProblem {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`record count must be a whole number >= 1, got ${n}.`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a whole number >= 0, got ${seed}.`);
  if (!PLANTED_FAMILIES.includes(family)) throw new RangeError(`unknown planted family "${family}"; expected one of ${PLANTED_FAMILIES.join(', ')}.`);
  if (!Number.isSafeInteger(grain) || grain < 1 || PLANTED_HEIGHT % grain !== 0 || grain > PLANTED_HEIGHT / 16) {
    throw new RangeError(`grain must divide ${PLANTED_HEIGHT} and be at most ${PLANTED_HEIGHT / 16} bytes, got ${grain}.`);
  }
  const units = PLANTED_HEIGHT / grain;
  // The family is mixed into the seed so that two families never share their draws.
  const random = mulberry32(seed * 4 + PLANTED_FAMILIES.indexOf(family) + 0x9e37);
  const operators = Math.max(4, Math.ceil(n / (family === 'lanes' ? 6 : family === 'guillotine' ? 3 : 4)));
  const pieces =
    family === 'guillotine'
      ? guillotine(n, operators, units, random)
      : family === 'lanes'
        ? lanes(n, operators, units, random)
        : skylineFill(n, operators, units, random, family === 'dnn' ? dnnShape : freeShape);
  // Records in a drawn order: the input order tells a planner nothing about the cut.
  for (let k = pieces.length - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [pieces[k], pieces[j]] = [pieces[j], pieces[k]];
  }
  const records: TensorUsageRecord[] = pieces.map((p, k) => ({ id: `b${k}`, size: p.h * grain, first: p.t0, last: p.t1 }));
  return {
    problem: makeProblem(`planted-${family}-${n}-s${seed}${grain === PLANTED_GRAIN ? '' : `-g${grain}`}`, records, operators),
    optimum: PLANTED_HEIGHT,
    offsets: pieces.map((p) => p.y * grain),
  };
}

/** Can the piece be cut across time (true) or across memory (false), and can it at all. */
function cuttable(p: Piece): { time: boolean; memory: boolean } {
  return { time: p.t1 > p.t0, memory: p.h > 1 };
}

/** Cuts p in two at a drawn point between a quarter and three quarters of the chosen side. */
function cut(p: Piece, acrossTime: boolean, random: () => number): [Piece, Piece] {
  if (acrossTime) {
    const span = p.t1 - p.t0 + 1;
    const left = Math.min(span - 1, Math.max(1, Math.round(span * (0.25 + 0.5 * random()))));
    return [
      { ...p, t1: p.t0 + left - 1 },
      { ...p, t0: p.t0 + left },
    ];
  }
  const low = Math.min(p.h - 1, Math.max(1, Math.round(p.h * (0.25 + 0.5 * random()))));
  return [
    { ...p, h: low },
    { ...p, y: p.y + low, h: p.h - low },
  ];
}

/**
 * Cuts `pieces` further until there are n: the piece of largest drawn weight (area times
 * 0.5 to 1.5) next, along its longer side relative to the rectangle with odds 3:1.
 * With `memoryFirst`, a piece of the whole height is cut across memory only.
 */
function splitUntil(pieces: Piece[], n: number, operators: number, units: number, random: () => number, memoryFirst: boolean): Piece[] {
  const heap = new PieceHeap();
  const done: Piece[] = [];
  const offer = (p: Piece): void => {
    const c = cuttable(p);
    if (!c.time && !c.memory) done.push(p);
    else heap.push(p, (p.t1 - p.t0 + 1) * p.h * (0.5 + random()));
  };
  for (const p of pieces) offer(p);
  while (heap.size() + done.length < n && heap.size() > 0) {
    const p = heap.pop();
    const c = cuttable(p);
    const whole = memoryFirst && p.h === units;
    let acrossTime: boolean;
    if (whole || !c.time) acrossTime = false;
    else if (!c.memory) acrossTime = true;
    else {
      const long = (p.t1 - p.t0 + 1) / operators > p.h / units;
      acrossTime = random() < 0.75 ? long : !long;
    }
    if (whole && !c.memory) {
      done.push(p);
      continue;
    }
    for (const q of cut(p, acrossTime, random)) offer(q);
  }
  return [...done, ...heap.drain()];
}

function guillotine(n: number, operators: number, units: number, random: () => number): Piece[] {
  return splitUntil([{ t0: 0, t1: operators - 1, y: 0, h: units }], n, operators, units, random, true);
}

/**
 * Lanes of drawn heights across the whole time (about 1.5 sqrt(n) of them), cut into chains by
 * drawn points (at most 0.7 n pieces in all); splitUntil then cuts the largest pieces, in
 * memory or time, up to n (branches beside a chain, shorter tensors).
 */
function lanes(n: number, operators: number, units: number, random: () => number): Piece[] {
  const chainPieces = Math.max(1, Math.floor(0.7 * n));
  const laneCount = Math.max(1, Math.min(units, chainPieces, Math.round(1.5 * Math.sqrt(n))));
  // Lane heights: drawn weights, scaled to the rectangle, each at least one grain.
  const weights = Array.from({ length: laneCount }, () => 0.2 + random() * random() * 4);
  const total = weights.reduce((s, w) => s + w, 0);
  const heights = weights.map((w) => Math.max(1, Math.floor((w / total) * units)));
  let spare = units - heights.reduce((s, h) => s + h, 0);
  for (let k = 0; spare > 0; k = (k + 1) % laneCount, spare--) heights[k]++;
  for (let k = 0; spare < 0; k = (k + 1) % laneCount) {
    if (heights[k] > 1) {
      heights[k]--;
      spare++;
    }
  }
  const cuts = heights.map(() => new Set<number>());
  for (let k = laneCount; k < chainPieces && operators > 1; k++) cuts[Math.floor(random() * laneCount)].add(1 + Math.floor(random() * (operators - 1)));
  const pieces: Piece[] = [];
  let y = 0;
  heights.forEach((h, lane) => {
    let start = 0;
    for (const at of [...cuts[lane]].sort((a, b) => a - b)) {
      pieces.push({ t0: start, t1: at - 1, y, h });
      start = at;
    }
    pieces.push({ t0: start, t1: operators - 1, y, h });
    y += h;
  });
  return splitUntil(pieces, n, operators, units, random, false);
}

/** A shape drawn for a stretch of `width` operators with `room` grains above it. */
type ShapeDraw = (random: () => number, width: number, room: number, units: number, scale: number) => { w: number; h: number };

/** Any aspect: widths up to the stretch, heights around the area a piece should have. */
function freeShape(random: () => number, width: number, room: number, units: number, scale: number): { w: number; h: number } {
  const w = Math.max(1, Math.min(width, Math.round(Math.exp(random() * Math.log(16)))));
  const h = Math.round(((scale * units) / Math.sqrt(w)) * (0.3 + 1.4 * random()));
  return { w, h: Math.min(room, Math.max(1, h)) };
}

/** Inference tensors: activations, skip connections, workspaces (see the family list above). */
function dnnShape(random: () => number, width: number, room: number, units: number, scale: number): { w: number; h: number } {
  const roll = random();
  let w: number;
  let h: number;
  if (roll < 0.18) {
    // Log-uniform from 4 to 64 operators (a residual block to a long U-Net skip).
    w = Math.round(4 * Math.exp(random() * Math.log(16)));
    h = units * scale * (0.06 + 0.54 * random());
  } else if (roll < 0.28) {
    w = 1;
    h = units * scale * (0.2 + 2 * random());
  } else {
    w = 1 + Math.floor(random() * random() * 8);
    h = units * scale * (0.4 + 4.6 * random());
  }
  return { w: Math.max(1, Math.min(width, w)), h: Math.min(room, Math.max(1, Math.round(h))) };
}

/**
 * Bottom-left fill: on the lowest, leftmost flat stretch of the filled skyline, a piece
 * of drawn shape at its left end, until every operator is filled to the top. The scale of
 * the shapes is tuned (tries with ever larger pieces) until the fill takes at most n
 * pieces; splitUntil then cuts the largest to exactly n.
 */
function skylineFill(n: number, operators: number, units: number, random: () => number, shape: ShapeDraw): Piece[] {
  // Scale: a piece's share of the memory. A column holds about 1 / scale activation-sized
  // pieces; n pieces over `operators` columns want about n / operators * (mean width).
  let scale = Math.min(1, operators / n / 1.5);
  // Very few records (a fill takes at least a few pieces): cut the rectangle instead.
  for (let attempt = 0; attempt < 40; attempt++) {
    const pieces = fill(operators, units, random, shape, scale, n);
    if (pieces !== undefined) return splitUntil(pieces, n, operators, units, random, false);
    scale *= 1.25;
  }
  return splitUntil([{ t0: 0, t1: operators - 1, y: 0, h: units }], n, operators, units, random, false);
}

/** One fill, or undefined as soon as it takes more than `limit` pieces. */
function fill(operators: number, units: number, random: () => number, shape: ShapeDraw, scale: number, limit: number): Piece[] | undefined {
  const sky = new Int32Array(operators);
  const starts = new Int32Array(operators);
  const pieces: Piece[] = [];
  for (;;) {
    // A drawn stretch of equal height below the top (maximal runs), a drawn place in it.
    let stretches = 0;
    for (let t = 0; t < operators; t++) if (sky[t] < units && (t === 0 || sky[t - 1] !== sky[t])) starts[stretches++] = t;
    if (stretches === 0) return pieces;
    const a0 = starts[Math.floor(random() * stretches)];
    let b = a0;
    while (b + 1 < operators && sky[b + 1] === sky[a0]) b++;
    const y = sky[a0];
    const { w, h } = shape(random, b - a0 + 1, units - y, units, scale);
    const a = a0 + Math.floor(random() * (b - a0 + 2 - w));
    // A sliver under the next piece's height would only make a needle: fill the room.
    const height = units - y - h < Math.max(1, Math.round(units * scale * 0.05)) ? units - y : h;
    pieces.push({ t0: a, t1: a + w - 1, y, h: height });
    if (pieces.length > limit) return undefined;
    for (let t = a; t < a + w; t++) sky[t] = y + height;
  }
}

/** A max-heap of pieces by weight. */
class PieceHeap {
  private readonly items: Piece[] = [];
  private readonly weights: number[] = [];

  size(): number {
    return this.items.length;
  }

  push(p: Piece, weight: number): void {
    const { items, weights } = this;
    let k = items.length;
    items.push(p);
    weights.push(weight);
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (weights[parent] >= weights[k]) break;
      this.swap(k, parent);
      k = parent;
    }
  }

  pop(): Piece {
    const { items, weights } = this;
    const top = items[0];
    const lastItem = items.pop()!;
    const lastWeight = weights.pop()!;
    if (items.length > 0) {
      items[0] = lastItem;
      weights[0] = lastWeight;
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < items.length && weights[l] > weights[m]) m = l;
        if (r < items.length && weights[r] > weights[m]) m = r;
        if (m === k) break;
        this.swap(k, m);
        k = m;
      }
    }
    return top;
  }

  drain(): Piece[] {
    return this.items.splice(0);
  }

  private swap(i: number, j: number): void {
    [this.items[i], this.items[j]] = [this.items[j], this.items[i]];
    [this.weights[i], this.weights[j]] = [this.weights[j], this.weights[i]];
  }
}

/** The planted suite the benchmark and the quality experiment run: every family at each size and seed. */
export const PLANTED_SUITE = { sizes: [50, 200, 1000, 5000], seeds: [1, 2, 3] } as const;

/** One instance of a planted suite, as a `synthetic:` source (io/source.ts reads it). */
export interface PlantedInstance {
  readonly family: PlantedFamily;
  readonly n: number;
  readonly seed: number;
  readonly source: string;
}

/**
 * Instances of the planted suite (or of other `seeds`: instances a planner was not tuned
 * on); at the largest size only the first seed, which keeps a sweep of 60 s per instance
 * within the hour.
 */
export function plantedSuite(seeds: readonly number[] = PLANTED_SUITE.seeds): PlantedInstance[] {
  const largest = PLANTED_SUITE.sizes[PLANTED_SUITE.sizes.length - 1];
  return PLANTED_SUITE.sizes.flatMap((n) =>
    (n === largest ? seeds.slice(0, 1) : seeds).flatMap((seed) => PLANTED_FAMILIES.map((family) => ({ family, n, seed, source: `synthetic:planted?n=${n}&seed=${seed}&family=${family}` }))),
  );
}
