import { describe, expect, it } from 'vitest';
import { medianInterval } from '../../../src/experiments/studies/gemm-tiling.ts';
import { atLeast, below, MIN_RUNS, ratioOf, showRatio } from '../../../src/report/studies/gemm-verdicts.ts';

/** A cell's figure over five runs (the study's least), as the study summarizes it. */
const five = (...values: number[]) => medianInterval(values, 1);

describe('ratioOf', () => {
  it('divides the medians and takes the interval at the extremes of the two 95% intervals', () => {
    // Five runs: the bootstrap's 95% interval of the median is the smallest to the largest run.
    const a = five(100, 102, 104, 106, 108);
    const b = five(10, 11, 12, 13, 14);
    expect(a.ci95).toEqual([100, 108]);
    const r = ratioOf(a, b);
    expect(r.value).toBeCloseTo(104 / 12, 12);
    expect(r.low).toBeCloseTo(100 / 14, 12);
    expect(r.high).toBeCloseTo(108 / 10, 12);
    expect(r.runs).toBe(5);
    expect(showRatio(r)).toBe('8.67x [7.14x, 10.8x]');
  });
});

describe('atLeast (a magnitude against a stated threshold)', () => {
  const untiled = five(392, 395, 399, 401, 404);
  it('holds when the whole interval clears the threshold', () => {
    const d = atLeast(ratioOf(untiled, five(22, 23, 23, 24, 25)), 8.65);
    expect(d).toEqual({ verdict: 'holds', why: 'the interval is at or above 8.65x' });
  });

  it('does not hold when the whole interval is below it, however close the median', () => {
    // The old report's "holds in direction" at 1.0026x: a threshold of 2.05x says no.
    const d = atLeast(ratioOf(five(3.86, 3.87, 3.88, 3.89, 3.9), five(3.85, 3.86, 3.87, 3.88, 3.89)), 2.05);
    expect(d.verdict).toBe('does not hold');
    expect(d.why).toBe('the interval is below 2.05x');
  });

  it('cannot tell when the interval straddles the threshold', () => {
    const d = atLeast(ratioOf(five(8, 9, 10, 11, 12), five(1, 1, 1, 1, 1)), 10);
    expect(d).toEqual({ verdict: 'inconclusive', why: 'the interval straddles 10.0x' });
  });

  it(`cannot tell from fewer than ${MIN_RUNS} runs, whatever the figures`, () => {
    const one = medianInterval([400], 1);
    const d = atLeast(ratioOf(one, medianInterval([20], 1)), 8.65);
    expect(d).toEqual({ verdict: 'inconclusive', why: '1 run(s) per cell: no 95% interval (needs 5)' });
  });
});

describe('below ("tile 2048 beats untiled")', () => {
  it('holds when the intervals are apart and the tiled run is faster', () => {
    expect(below(ratioOf(five(3.4, 3.45, 3.5, 3.52, 3.55), five(3.7, 3.75, 3.77, 3.8, 3.85)), 1).verdict).toBe('holds');
  });

  it('does not hold when the tiled run is slower on the whole interval', () => {
    expect(below(ratioOf(five(4.0, 4.1, 4.2, 4.3, 4.4), five(3.7, 3.75, 3.77, 3.8, 3.85)), 1).verdict).toBe('does not hold');
  });

  it('cannot tell when the two medians differ but their intervals overlap (the old report called 3.58 s against 3.77 s a win)', () => {
    const d = below(ratioOf(five(3.4, 3.5, 3.58, 3.7, 3.9), five(3.6, 3.7, 3.77, 3.8, 3.9)), 1);
    expect(d.verdict).toBe('inconclusive');
  });
});
