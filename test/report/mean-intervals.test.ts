import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meanInterval, meanRatioInterval } from '../../src/report/mean-intervals.ts';

const samples = fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 1, maxLength: 20 });

describe('meanInterval', () => {
  it('holds the mean between the smallest and largest sample, and is the same for the same seed', () => {
    fc.assert(
      fc.property(samples, (values) => {
        const found = meanInterval(values)!;
        expect(found.interval[0]).toBeLessThanOrEqual(found.interval[1]);
        expect(found.interval[0]).toBeGreaterThanOrEqual(Math.min(...values) - 1e-9);
        expect(found.interval[1]).toBeLessThanOrEqual(Math.max(...values) + 1e-9);
        expect(meanInterval(values)).toEqual(found);
      }),
      { numRuns: 50 },
    );
  });

  it('shrinks to the value when every sample is the same, and is undefined without samples', () => {
    expect(meanInterval([5, 5, 5])).toEqual({ mean: 5, interval: [5, 5] });
    expect(meanInterval([])).toBeUndefined();
    expect(meanInterval(undefined)).toBeUndefined();
  });
});

describe('meanRatioInterval', () => {
  it('separates two clearly different timings and holds the ratio of means inside its interval', () => {
    const slow = [110, 112, 108, 111, 109, 110, 113, 107];
    const fast = [100, 101, 99, 100, 102, 98, 100, 100];
    const found = meanRatioInterval(slow, fast)!;
    expect(found.ratio).toBeCloseTo(110 / 100, 6);
    expect(found.interval[0]).toBeGreaterThan(1);
    expect(found.interval[0]).toBeLessThanOrEqual(found.ratio);
    expect(found.interval[1]).toBeGreaterThanOrEqual(found.ratio);
  });

  it('straddles 1 for two draws of the same noisy timing', () => {
    const a = [100, 130, 90, 120, 95, 125, 105, 115];
    const b = [120, 95, 125, 100, 130, 90, 110, 105];
    const found = meanRatioInterval(a, b)!;
    expect(found.interval[0]).toBeLessThan(1);
    expect(found.interval[1]).toBeGreaterThan(1);
    expect(meanRatioInterval(a, undefined)).toBeUndefined();
  });
});
