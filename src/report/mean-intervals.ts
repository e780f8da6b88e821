import { mulberry32 } from '../core/synthetic.ts';

/**
 * 95% intervals of means, by a seeded percentile bootstrap (1000 resamples): FlexNN reports
 * means of a few runs, so its claims are decided on intervals of means, never on two
 * point values. Deterministic for a seed, as every table of this project is.
 */
const RESAMPLES = 1000;

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function resampledMean(values: readonly number[], random: () => number): number {
  let sum = 0;
  for (let k = 0; k < values.length; k++) sum += values[Math.floor(random() * values.length)];
  return sum / values.length;
}

function percentiles(draws: number[]): readonly [number, number] {
  draws.sort((a, b) => a - b);
  return [draws[Math.floor(0.025 * (draws.length - 1))], draws[Math.ceil(0.975 * (draws.length - 1))]];
}

/** The mean of `samples` and its 95% interval; undefined without samples. */
export function meanInterval(samples: readonly number[] | undefined, seed = 1): { readonly mean: number; readonly interval: readonly [number, number] } | undefined {
  if (samples === undefined || samples.length === 0) return undefined;
  const random = mulberry32(seed);
  const draws = Array.from({ length: RESAMPLES }, () => resampledMean(samples, random));
  return { mean: mean(samples), interval: percentiles(draws) };
}

/**
 * mean(a) / mean(b) and its 95% interval, the two resampled apart (independent runs, each
 * in a process of its own); undefined unless both have samples.
 */
export function meanRatioInterval(a: readonly number[] | undefined, b: readonly number[] | undefined, seed = 1): { readonly ratio: number; readonly interval: readonly [number, number] } | undefined {
  if (a === undefined || b === undefined || a.length === 0 || b.length === 0) return undefined;
  const random = mulberry32(seed);
  const draws = Array.from({ length: RESAMPLES }, () => resampledMean(a, random) / resampledMean(b, random));
  return { ratio: mean(a) / mean(b), interval: percentiles(draws) };
}
