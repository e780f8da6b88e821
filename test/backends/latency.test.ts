import { describe, expect, it } from 'vitest';
import { summarizeLatency } from '../../src/backends/latency.ts';

describe('summarizeLatency', () => {
  it('gives the median, the extremes, the mean and the sample standard deviation', () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, sample variance 32/7.
    const s = summarizeLatency([9, 4, 2, 5, 4, 7, 4, 5]);
    expect(s).toMatchObject({ runs: 8, median: 4.5, min: 2, max: 9, mean: 5 });
    expect(s.sd).toBeCloseTo(Math.sqrt(32 / 7), 3);
    expect(s.ci95[0]).toBeLessThanOrEqual(s.median);
    expect(s.ci95[1]).toBeGreaterThanOrEqual(s.median);
  });

  it('gives a spread of 0 for a single run', () => {
    expect(summarizeLatency([12.5])).toMatchObject({ runs: 1, median: 12.5, mean: 12.5, sd: 0 });
  });

  it('is the same for the same samples and seed', () => {
    const samples = [3.1, 2.9, 3.4, 3.0, 5.2, 3.3];
    expect(summarizeLatency(samples, 7)).toEqual(summarizeLatency([...samples].reverse(), 7));
  });
});
