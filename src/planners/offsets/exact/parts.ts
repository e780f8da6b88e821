import { alignUp } from '../../../core/alignment.ts';
import { denseTime } from '../../../core/dense-time.ts';
import type { Problem } from '../../../core/problem.ts';
import type { TensorUsageRecord } from '../../../core/records.ts';
import { mulberry32 } from '../../../core/synthetic.ts';
import { greedyBySize } from '../greedy-by-size.ts';
import { stripPackingBestFit } from '../strip-packing-best-fit.ts';
import type { Budget } from './budget.ts';
import { chainsOf } from './chains.ts';
import type { Part } from './decompose.ts';
import { searchLowestValley } from './lowest-valley-search.ts';
import type { PackingInstance } from './search-setup.ts';
import { FailedStates, searchPacking, type SearchOutcome } from './skyline-search.ts';

/** A part of an offsets problem as the searches see it, with what is known about it. */
export interface PartState {
  readonly part: Part;
  /** The part's records as a problem of their own (original times, part order). */
  readonly problem: Problem;
  /** The part forward in time and mirrored in time (same records, same indices). */
  readonly instances: readonly [PackingInstance, PackingInstance];
  readonly memos: readonly [FailedStates, FailedStates];
  readonly ranks: ReadonlyMap<Order, Int32Array>;
  /** Arenas of this part are multiples of it. */
  readonly grain: number;
  /** Proven: no packing of the part has an arena below `low`. */
  low: number;
  /** Best packing found, its arena and offsets (relative to the part's base). */
  high: number;
  offsets: Float64Array;
  /** The largest capacity at which a search ran out of budget without an answer. */
  stoppedAt: number;
  /** Questions asked so far. */
  asked: number;
  /** Whether cut-rebuild.ts has had its one try at the part. */
  rebuildTried: boolean;
  /** The part's chains as a part of their own (chainedPart): null when no two records chain, undefined until asked. */
  chained: ChainedPart | null | undefined;
}

/** A part's chains (chains.ts) searched as a part of their own; chainOf maps each record of the part to its chain. */
export interface ChainedPart {
  readonly state: PartState;
  readonly chainOf: Int32Array;
}

/**
 * The part's chains as a part (built once, kept on the state), or undefined when no two
 * records chain. A packing of the chains is one of the part (offsetsOfChained); they only
 * find, never prove: 'infeasible' on the chains says nothing of the part.
 */
export function chainedPart(state: PartState): ChainedPart | undefined {
  if (state.chained === undefined) {
    const chains = chainsOf(state.problem);
    state.chained = chains === undefined ? null : { state: wholePartState(chains.problem, state.instances[0].alignment), chainOf: chains.chainOf };
  }
  return state.chained ?? undefined;
}

/** The part's offsets from its chains' offsets: every record at its chain's offset. */
export function offsetsOfChained(chained: ChainedPart, chainOffsets: Float64Array): Float64Array {
  return Float64Array.from(chained.chainOf, (c) => chainOffsets[c]);
}

export type Order = 'size' | 'life' | 'area' | 'short' | 'incumbent' | 'end';

/**
 * The first searches a decision runs, in turn (then orders with seeded noise). The same
 * complete search with different move orders and time directions has very different
 * luck on a given instance (heavy tails), so short runs of many, then longer ones, find
 * packings that one long run misses. Any run that ends proves its answer.
 */
export const PORTFOLIO: readonly { readonly order: Order; readonly mirrored: boolean }[] = [
  { order: 'size', mirrored: false },
  { order: 'life', mirrored: true },
  { order: 'short', mirrored: false },
  { order: 'area', mirrored: true },
  { order: 'incumbent', mirrored: false },
  { order: 'life', mirrored: false },
  { order: 'size', mirrored: true },
  { order: 'short', mirrored: true },
  { order: 'area', mirrored: false },
  { order: 'incumbent', mirrored: true },
];
/** Nodes of the shortest run (scaled by Luby's sequence, and at least 4 per record). */
export const RUN_NODES = 5000;
/** Parts up to this many records run both engines; larger ones the lazy engine only. */
export const SCAN_UP_TO = 1000;

/**
 * Run `run` of the portfolio on a part: the fixed orders first, then orders with noise
 * seeded by run and seed; `lazy` picks the engine (lowest-valley-search.ts, else
 * skyline-search.ts), `fitFirst` the move order (search-setup.ts's fitClass first, then
 * the rank). The fixed orders come first whatever the seed: they solve most instances,
 * and a seed should vary the luck of the search, not cost it its best tries.
 */
export function portfolioRun(state: PartState, capacity: number, budget: Budget, run: number, lazy: boolean, seed = 0, fitFirst = false): SearchOutcome {
  const fixed = run < PORTFOLIO.length ? PORTFOLIO[run] : undefined;
  const mirrored = fixed?.mirrored ?? (run + seed) % 2 === 1;
  const rank = fixed !== undefined ? state.ranks.get(fixed.order)! : noisyRank(state, run + seed * 1_000_003);
  const instance = state.instances[mirrored ? 1 : 0];
  const options = { rank, memo: state.memos[mirrored ? 1 : 0], fitFirst };
  return lazy ? searchLowestValley(instance, capacity, budget, options) : searchPacking(instance, capacity, budget, options);
}

/** Nodes of run `run` in Luby's sequence, at least 4 per record. */
export function runNodes(state: PartState, run: number): number {
  return Math.max(RUN_NODES, 4 * state.instances[0].n) * luby(run + 1);
}

/** Luby's restart sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... (i >= 1). */
export function luby(i: number): number {
  for (;;) {
    let k = 1;
    while ((1 << k) - 1 < i) k++;
    if ((1 << k) - 1 === i) return 1 << (k - 1);
    i -= (1 << (k - 1)) - 1;
  }
}

/** An order with seeded noise: by size, lifetime or area (by the seed), each scaled by up to 1.5. */
export function noisyRank(state: PartState, seed: number): Int32Array {
  const random = mulberry32(seed);
  const { occupied, first, last, n } = state.instances[0];
  const kind = seed % 3;
  const key = Float64Array.from({ length: n }, (_, k) => {
    const base = kind === 0 ? occupied[k] : kind === 1 ? last[k] - first[k] + 1 : (last[k] - first[k] + 1) * occupied[k];
    return base * (1 + 0.5 * random());
  });
  return rankBy(n, (k) => [-key[k], 0]);
}

export function partState(problem: Problem, part: Part, alignment: number): PartState {
  const records: TensorUsageRecord[] = part.records.map((i) => problem.records[i]);
  const n = records.length;
  const dense = denseTime(records);
  const occupied = new Float64Array(n);
  const real = new Float64Array(n);
  let grain = alignment > 1 ? alignment : 0;
  records.forEach((r, k) => {
    real[k] = r.size;
    occupied[k] = alignUp(r.size, alignment);
    grain = gcd(gcd(grain, r.size), occupied[k]);
  });
  grain = Math.max(1, grain);
  const forward: PackingInstance = { n, points: dense.points, first: dense.first, last: dense.last, occupied, real, alignment };
  const mirror = (times: Int32Array): Int32Array => times.map((t) => dense.points - 1 - t);
  const mirrored: PackingInstance = { ...forward, first: mirror(dense.last), last: mirror(dense.first) };

  // Lower bound: at every point the live records stack up; all but the top one take
  // their occupied size, the top one its real size. So the breadth in occupied sizes,
  // less the largest rounding of a record live there, bounds the arena (with alignment 1:
  // the largest breadth).
  let low = 0;
  {
    const delta = new Float64Array(dense.points + 1);
    records.forEach((r, k) => {
      delta[dense.first[k]] += occupied[k];
      delta[dense.last[k] + 1] -= occupied[k];
      low = Math.max(low, r.size);
    });
    const padding = new Float64Array(dense.points);
    if (alignment > 1) {
      for (let k = 0; k < n; k++) {
        const pad = occupied[k] - real[k];
        for (let t = dense.first[k]; t <= dense.last[k]; t++) if (pad > padding[t]) padding[t] = pad;
      }
    }
    let live = 0;
    for (let t = 0; t < dense.points; t++) {
      live += delta[t];
      low = Math.max(low, live - padding[t]);
    }
  }
  low = roundUp(low, grain);

  // Incumbent: the better of the two greedy plans the paper recommends.
  const sub: Problem = { name: `${problem.name}#part`, records, operatorCount: problem.operatorCount };
  let offsets = Float64Array.from(greedyBySize.plan(sub, { alignment }).offsets);
  let high = arenaOf(offsets, real);
  const strip = Float64Array.from(stripPackingBestFit.plan(sub, { alignment }).offsets);
  if (arenaOf(strip, real) < high) {
    offsets = strip;
    high = arenaOf(strip, real);
  }
  const life = (k: number): number => dense.last[k] - dense.first[k];
  const incumbent = offsets;
  const keys: Record<Order, (k: number) => [number, number]> = {
    size: (k) => [-occupied[k], -life(k)],
    life: (k) => [-life(k), -occupied[k]],
    area: (k) => [-(life(k) + 1) * occupied[k], -occupied[k]],
    short: (k) => [life(k), 0],
    incumbent: (k) => [incumbent[k], -occupied[k]],
    end: (k) => [-dense.last[k], -occupied[k]],
  };
  const ranks = new Map<Order, Int32Array>();
  for (const order of Object.keys(keys) as Order[]) ranks.set(order, rankBy(n, keys[order]));
  return {
    part,
    problem: sub,
    instances: [forward, mirrored],
    memos: [new FailedStates(), new FailedStates()],
    ranks,
    grain,
    low: Math.min(low, high),
    high,
    offsets,
    stoppedAt: -1,
    asked: 0,
    rebuildTried: false,
    chained: undefined,
  };
}

/** The whole problem as one part on base 0 (every record, in its order). */
export function wholePartState(problem: Problem, alignment: number): PartState {
  return partState(problem, { records: problem.records.map((_, i) => i), base: 0 }, alignment);
}

/** Ranks 0..n-1 by a two-part key, ties by index. */
function rankBy(n: number, key: (k: number) => [number, number]): Int32Array {
  const keys = Array.from({ length: n }, (_, k) => key(k));
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => keys[a][0] - keys[b][0] || keys[a][1] - keys[b][1] || a - b);
  const rank = new Int32Array(n);
  order.forEach((k, position) => (rank[k] = position));
  return rank;
}

export function arenaOf(offsets: Float64Array, real: Float64Array): number {
  let top = 0;
  for (let k = 0; k < offsets.length; k++) top = Math.max(top, offsets[k] + real[k]);
  return top;
}

export function roundUp(value: number, grain: number): number {
  return Math.ceil(value / grain) * grain;
}

export function roundDown(value: number, grain: number): number {
  return Math.floor(value / grain) * grain;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
