import { describe, expect, it } from 'vitest';
import { randomArray, rng, runKernel } from './helpers.ts';

describe('CausalMask', () => {
  it('keeps key j of query i when j <= i + S - T and makes it -inf otherwise, per head', () => {
    for (const [heads, queries, keys] of [
      [3, 5, 5],
      [2, 3, 7],
      [1, 1, 1],
    ]) {
      const x = randomArray(heads * queries * keys, rng(queries * keys));
      const got = runKernel({ op: 'CausalMask' }, [x], [[heads, queries, keys]]);
      expect(got.shape).toEqual([heads, queries, keys]);
      for (let h = 0; h < heads; h++)
        for (let i = 0; i < queries; i++)
          for (let j = 0; j < keys; j++) {
            const at = (h * queries + i) * keys + j;
            expect(got.output[at]).toBe(j <= i + keys - queries ? x[at] : -Infinity);
          }
    }
  });

  it('then a Softmax gives the masked keys weight 0 and each row still sums to 1', () => {
    const x = randomArray(4 * 4, rng(1), 5);
    const masked = runKernel({ op: 'CausalMask' }, [x], [[4, 4]]).output;
    const weights = runKernel({ op: 'Softmax', axis: -1, beta: 0.125 }, [masked], [[4, 4]]).output;
    for (let i = 0; i < 4; i++) {
      let sum = 0;
      for (let j = 0; j < 4; j++) {
        if (j > i) expect(weights[i * 4 + j]).toBe(0);
        sum += weights[i * 4 + j];
      }
      expect(sum).toBeCloseTo(1, 6);
    }
    expect(weights[0]).toBe(1);
  });

  it('refuses scores with fewer keys than queries', () => {
    expect(() => runKernel({ op: 'CausalMask' }, [new Float32Array(6)], [[3, 2]], 'NHWC', [3, 2])).toThrow(/2 keys for 3 queries/);
  });
});
