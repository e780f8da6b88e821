import { describe, expect, it } from 'vitest';
import { logAxisValues, logTicks, RATIO_CAPS, ratioAxisEnd, ratioTicks } from '../../../src/report/charts/axis-values.ts';

describe('logTicks', () => {
  it('ticks powers of ten, and 2 and 5 times them over short ranges', () => {
    expect(logTicks(100, 10000)).toEqual([100, 1000, 10000]);
    expect(logTicks(0.05, 40)).toEqual([0.1, 1, 10]);
    expect(logTicks(0.3, 0.3)).toEqual([0.3]);
    expect(logTicks(3, 30)).toEqual([5, 10, 20]);
    expect(logTicks(3, 8)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('gives explicit values only where there are two or more', () => {
    expect(logAxisValues([12, 3400])).toEqual({ values: [100, 1000] });
    expect(logAxisValues([0.3, 0.3])).toEqual({});
  });
});

describe('ratio axes', () => {
  it('tick from 1, every cap among the ticks', () => {
    expect(ratioTicks(1.5)).toEqual([1, 1.1, 1.2, 1.3, 1.4, 1.5]);
    expect(ratioTicks(2.5)).toEqual([1, 1.25, 1.5, 1.75, 2, 2.25, 2.5]);
    for (const cap of RATIO_CAPS) expect(ratioTicks(cap).at(-1)).toBe(cap);
  });

  it('end at the first cap at or above the highest ratio', () => {
    expect(ratioAxisEnd(1.39)).toBe(1.5);
    expect(ratioAxisEnd(1.5)).toBe(1.5);
    expect(ratioAxisEnd(1.0)).toBe(1.05);
    expect(ratioAxisEnd(180.2)).toBe(181);
  });
});
