import type { MedianInterval } from '../../experiments/studies/gemm-tiling.ts';
import type { Verdict } from '../claims.ts';

/**
 * How a finding of the GEMM-tiling paper fares on our runs, in the claims' vocabulary
 * (claims.ts) and with their rule for timings: decided only where the 95% intervals say so,
 * else inconclusive (we cannot tell). No "holds in direction": a finding either clears its
 * stated threshold on the whole interval, misses it on the whole interval, or is undecided.
 */
export type GemmVerdict = Extract<Verdict, 'holds' | 'does not hold' | 'inconclusive'>;

/**
 * Fewer runs give no verdict. For the median of 5 runs the bootstrap's 95% interval is the
 * smallest to the largest run, which covers the true median with probability 1 - 2/2^5 =
 * 94%; with 3 runs the same interval covers it with 75% only.
 */
export const MIN_RUNS = 5;

/**
 * A magnitude holds when ours reaches at least this fraction of the authors' (the same order
 * of effect): the machines differ (a server core at ~40 GFLOP/s, an Odroid-XU4 at ~1), so
 * the same factor is not expected, but a tenth of it would be another finding.
 */
export const SAME_ORDER = 0.5;

/** a / b: the ratio of two medians, and the interval their two 95% intervals allow (the ratio's extremes). */
export interface Ratio {
  readonly value: number;
  readonly low: number;
  readonly high: number;
  /** The fewer runs of the two cells. */
  readonly runs: number;
}

export function ratioOf(a: MedianInterval, b: MedianInterval): Ratio {
  return { value: a.median / b.median, low: a.ci95[0] / b.ci95[1], high: a.ci95[1] / b.ci95[0], runs: Math.min(a.runs, b.runs) };
}

export interface Decision {
  readonly verdict: GemmVerdict;
  /** Why, in a few words (for the report). */
  readonly why: string;
}

const x = (v: number): string => `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}x`;
export const showRatio = (r: Ratio): string => `${x(r.value)} [${x(r.low)}, ${x(r.high)}]`;

function tooFew(r: Ratio): Decision | undefined {
  return r.runs < MIN_RUNS ? { verdict: 'inconclusive', why: `${r.runs} run(s) per cell: no 95% interval (needs ${MIN_RUNS})` } : undefined;
}

/** Holds when the whole interval is at or above `threshold`, does not when it is wholly below, else cannot tell. */
export function atLeast(r: Ratio, threshold: number): Decision {
  const few = tooFew(r);
  if (few) return few;
  if (r.low >= threshold) return { verdict: 'holds', why: `the interval is at or above ${x(threshold)}` };
  if (r.high < threshold) return { verdict: 'does not hold', why: `the interval is below ${x(threshold)}` };
  return { verdict: 'inconclusive', why: `the interval straddles ${x(threshold)}` };
}

/** Holds when the whole interval is below `threshold`, does not when it is wholly at or above, else cannot tell. */
export function below(r: Ratio, threshold: number): Decision {
  const few = tooFew(r);
  if (few) return few;
  if (r.high < threshold) return { verdict: 'holds', why: `the interval is below ${x(threshold)}` };
  if (r.low >= threshold) return { verdict: 'does not hold', why: `the interval is at or above ${x(threshold)}` };
  return { verdict: 'inconclusive', why: `the interval straddles ${x(threshold)}` };
}
