import { makeProblem, type Problem } from './problem.ts';
import type { TensorUsageRecord } from './records.ts';

/**
 * Seeded, deterministic generators of synthetic planning problems, for benchmarks and
 * tests. The same (n, seed) always gives the same problem, on every platform: the only
 * source of randomness is the small PRNG below (never Math.random). Every generator is
 * O(n), so 100k records take milliseconds.
 */

/**
 * Mulberry32: a 32-bit state PRNG, good enough for workload generation (not for
 * cryptography). Returns floats uniform in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number uniform in [lo, hi] (both included). */
function intBetween(random: () => number, lo: number, hi: number): number {
  return lo + Math.floor(random() * (hi - lo + 1));
}

const KIB = 1024;

/**
 * A tensor size with a spread like the activations of inference networks: a power of two
 * from 1 KiB to 2 MiB (small sizes more likely, as in deep layers and heads), times
 * 1, 1.25, 1.5 or 1.75, so sizes are multiples of 256 bytes from 1 KiB to 3.5 MiB.
 */
function activationSize(random: () => number): number {
  // Exponent 0..11 with a mild bias towards the middle (sum of two uniform draws).
  const exponent = Math.min(11, Math.floor((random() + random()) * 6));
  const quarter = intBetween(random, 4, 7); // 4/4 .. 7/4
  return ((KIB << exponent) / 4) * quarter;
}

/**
 * A chain like a sequential network (no branches): record i is the output of operator i
 * and the input of operator i + 1, so it lives [i, i + 1]. n records over n + 1 operators.
 */
export function chainProblem(n: number, seed: number): Problem {
  checkCount(n);
  const random = mulberry32(seed);
  const records: TensorUsageRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    records[i] = { id: `t${i}`, size: activationSize(random), first: i, last: i + 1 };
  }
  return makeProblem(`chain-${n}-s${seed}`, records, n + 1);
}

/**
 * DAG-like records, as the activations of a network with branches: record i is produced
 * by operator i and consumed by 1 to 3 later operators. Most consumers are within a few
 * operators (the next layer, a parallel branch); some are long skips, as residual or
 * concat connections. Its closed interval is [producer, last consumer]. Operators 0..n,
 * the last one a sink that consumes whatever reaches past the end.
 */
export function randomDagProblem(n: number, seed: number): Problem {
  checkCount(n);
  const random = mulberry32(seed);
  const records: TensorUsageRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const consumers = random() < 0.6 ? 1 : random() < 0.75 ? 2 : 3;
    let lastConsumer = i + 1;
    for (let c = 0; c < consumers; c++) {
      const roll = random();
      const distance =
        roll < 0.85
          ? intBetween(random, 1, 4) // next layer or a short parallel branch
          : roll < 0.97
            ? intBetween(random, 5, 32) // a residual block or a concat
            : intBetween(random, 33, 256); // a long skip (U-Net style)
      lastConsumer = Math.max(lastConsumer, i + distance);
    }
    records[i] = { id: `t${i}`, size: activationSize(random), first: i, last: Math.min(lastConsumer, n) };
  }
  return makeProblem(`dag-${n}-s${seed}`, records, n + 1);
}

function checkCount(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`record count must be a whole number >= 0, got ${n}.`);
}
