import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balancedRuns } from '../../src/graph/balanced-runs.ts';

const sums = (weights: readonly number[], runs: [number, number][]): number[] => runs.map(([s, e]) => weights.slice(s, e).reduce((a, b) => a + b, 0));

/** Every way to cut n items into r non-empty contiguous runs (as cut positions), for the brute-force optimum. */
function* cuts(n: number, r: number, from = 1): Generator<number[]> {
  if (r === 1) {
    yield [];
    return;
  }
  for (let cut = from; cut <= n - r + 1; cut++) for (const rest of cuts(n, r - 1, cut + 1)) yield [cut, ...rest];
}

describe('balancedRuns', () => {
  it('splits equal weights evenly (32 paths into 2, 4 and 8 groups)', () => {
    const weights = new Array<number>(32).fill(50176);
    for (const k of [2, 4, 8]) expect(balancedRuns(weights, k).map(([s, e]) => e - s)).toEqual(new Array<number>(k).fill(32 / k));
  });

  it('gives min(k, n) runs, and one run for k = 1', () => {
    expect(balancedRuns([3, 1, 2], 1)).toEqual([[0, 3]]);
    expect(balancedRuns([3, 1, 2], 5)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(balancedRuns([], 3)).toEqual([]);
  });

  it('a heavy item gets a run of its own and the light ones share the other runs evenly', () => {
    // A ResNeXt layer at groups:4: the shortcut (64x a path's bytes) beside 32 paths.
    const runs = balancedRuns([256, ...new Array<number>(32).fill(4)], 4);
    expect(runs[0]).toEqual([0, 1]);
    const lengths = runs.slice(1).map(([s, e]) => e - s);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
  });

  it('a heavy item last gets its own run too, and ties go to the earlier cut: [1][1, 1]', () => {
    const runs = balancedRuns([...new Array<number>(32).fill(4), 256], 4);
    expect(runs[3]).toEqual([32, 33]);
    const lengths = runs.slice(0, 3).map(([s, e]) => e - s);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
    expect(balancedRuns([1, 1, 1], 2)).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });

  it('refuses k < 1 and weights that are not whole byte counts', () => {
    expect(() => balancedRuns([1], 0)).toThrow(/k must be/);
    expect(() => balancedRuns([1.5], 1)).toThrow(/whole numbers/);
  });

  it('covers the items with contiguous non-empty runs whose largest sum is the brute-force least, the same every time', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 10 }), (weights, k) => {
        const runs = balancedRuns(weights, k);
        const r = Math.min(k, weights.length);
        expect(runs).toHaveLength(r);
        expect(runs[0][0]).toBe(0);
        expect(runs[r - 1][1]).toBe(weights.length);
        runs.forEach(([s, e], i) => {
          expect(e).toBeGreaterThan(s);
          if (i > 0) expect(s).toBe(runs[i - 1][1]);
        });
        let best = Infinity;
        for (const positions of cuts(weights.length, r)) {
          const bounds = [0, ...positions, weights.length];
          best = Math.min(best, Math.max(...bounds.slice(1).map((end, j) => weights.slice(bounds[j], end).reduce((a, b) => a + b, 0))));
        }
        expect(Math.max(...sums(weights, runs))).toBe(best);
        // Among the splits that reach it, none is more even.
        let even = Infinity;
        for (const positions of cuts(weights.length, r)) {
          const bounds = [0, ...positions, weights.length];
          const parts = bounds.slice(1).map((end, j) => weights.slice(bounds[j], end).reduce((a, b) => a + b, 0));
          if (Math.max(...parts) === best)
            even = Math.min(
              even,
              parts.reduce((a, p) => a + p * p, 0),
            );
        }
        expect(sums(weights, runs).reduce((a, p) => a + p * p, 0)).toBe(even);
        expect(balancedRuns(weights, k)).toEqual(runs);
      }),
      { numRuns: 300 },
    );
  });
});
