import { max, mean, median, min, quantileSorted, sampleStandardDeviation } from 'simple-statistics';
import { mulberry32 } from '../core/synthetic.ts';

/** Inference latency over repeated runs (milliseconds). */
export interface LatencySummary {
  readonly runs: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly p90: number;
  /** 95% confidence interval of the median (seeded percentile bootstrap, 1000 resamples). */
  readonly ci95: readonly [number, number];
  /**
   * The arithmetic mean and the sample standard deviation, for sources that state mean ± 2σ
   * (the parallel-groups thesis). Absent from runs recorded before they were added
   * (2026-11-27); the sd is 0 for a single run.
   */
  readonly mean?: number;
  readonly sd?: number;
}

export function summarizeLatency(samples: readonly number[], seed = 1): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const random = mulberry32(seed);
  const medians: number[] = [];
  const resample = new Array<number>(sorted.length);
  for (let b = 0; b < 1000; b++) {
    for (let k = 0; k < sorted.length; k++) resample[k] = sorted[Math.floor(random() * sorted.length)];
    medians.push(median(resample));
  }
  medians.sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  return {
    runs: sorted.length,
    median: round(median(sorted)),
    min: round(min(sorted)),
    max: round(max(sorted)),
    p90: round(quantileSorted(sorted, 0.9)),
    ci95: [round(quantileSorted(medians, 0.025)), round(quantileSorted(medians, 0.975))],
    mean: round(mean(sorted)),
    sd: round(sorted.length > 1 ? sampleStandardDeviation(sorted) : 0),
  };
}
