import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, indices, randomArray, rng, runKernel, stridesOf } from './helpers.ts';

describe('Transpose', () => {
  it('output dimension k is input dimension perm[k], ranks 1 to 5 (fast-check)', () => {
    const arbitrary = fc
      .array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 })
      .chain((shape) => fc.record({ shape: fc.constant(shape), perm: fc.shuffledSubarray([...shape.keys()], { minLength: shape.length, maxLength: shape.length }), seed: fc.nat() }));
    fc.assert(
      fc.property(arbitrary, ({ shape, perm, seed }) => {
        const x = randomArray(count(shape), rng(seed));
        const got = runKernel({ op: 'Transpose', perm }, [x], [shape]);
        const outShape = perm.map((k) => shape[k]);
        expect(got.shape).toEqual(outShape);
        const strides = stridesOf(shape);
        const want = new Float32Array(x.length);
        let o = 0;
        // out[i_0.., i_r] = x at the index whose dimension perm[k] is i_k.
        for (const index of indices(outShape)) want[o++] = x[index.reduce((p, v, k) => p + v * strides[perm[k]], 0)];
        expect(got.output).toEqual(want);
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  it("splits an attention's heads: [T, H, D] -> [H, T, D] and the keys to [H, D, T]", () => {
    const x = randomArray(7 * 3 * 4, rng(2));
    const heads = runKernel({ op: 'Transpose', perm: [1, 0, 2] }, [x], [[7, 3, 4]]);
    const keys = runKernel({ op: 'Transpose', perm: [1, 2, 0] }, [x], [[7, 3, 4]]);
    expect(heads.shape).toEqual([3, 7, 4]);
    expect(keys.shape).toEqual([3, 4, 7]);
    for (let t = 0; t < 7; t++)
      for (let h = 0; h < 3; h++)
        for (let d = 0; d < 4; d++) {
          expect(heads.output[(h * 7 + t) * 4 + d]).toBe(x[(t * 3 + h) * 4 + d]);
          expect(keys.output[(h * 4 + d) * 7 + t]).toBe(x[(t * 3 + h) * 4 + d]);
        }
  });
});
