import { max, median, medianAbsoluteDeviation, min } from 'simple-statistics';
import type { TimingSummary } from './result.ts';

/** Median and spread of repeated timings (ms), rounded to microseconds. */
export function summarizeTimings(times: readonly number[]): TimingSummary {
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  const values = [...times];
  return {
    runs: values.length,
    median: round(median(values)),
    min: round(min(values)),
    max: round(max(values)),
    mad: round(values.length > 1 ? medianAbsoluteDeviation(values) : 0),
  };
}
