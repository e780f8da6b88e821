import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, indices, randomArray, rng, runKernel, stridesOf } from './helpers.ts';

describe('Slice', () => {
  it('elements [start, end) along the given axes, the others whole (fast-check)', () => {
    const arbitrary = fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }).chain((shape) =>
      fc.record({
        shape: fc.constant(shape),
        cuts: fc.tuple(...shape.map((d) => fc.tuple(fc.integer({ min: 0, max: d }), fc.integer({ min: 0, max: d }), fc.boolean()))),
        seed: fc.nat(),
      }),
    );
    fc.assert(
      fc.property(arbitrary, ({ shape, cuts, seed }) => {
        const x = randomArray(count(shape), rng(seed));
        const axes: number[] = [];
        const starts: number[] = [];
        const ends: number[] = [];
        cuts.forEach(([a, b, sliced], axis) => {
          if (!sliced) return;
          axes.push(axis - (axis % 2) * shape.length); // some axes counted from the end
          starts.push(Math.min(a, b));
          ends.push(Math.max(a, b));
        });
        const got = runKernel({ op: 'Slice', axes, starts, ends }, [x], [shape]);
        const begin = shape.map(() => 0);
        axes.forEach((a, k) => {
          begin[a < 0 ? a + shape.length : a] = starts[k];
        });
        const outShape = shape.map((d, axis) => {
          const k = axes.findIndex((a) => (a < 0 ? a + shape.length : a) === axis);
          return k < 0 ? d : ends[k] - starts[k];
        });
        expect(got.shape).toEqual(outShape);
        const strides = stridesOf(shape);
        const want = new Float32Array(count(outShape));
        let o = 0;
        for (const index of indices(outShape)) want[o++] = x[index.reduce((p, v, k) => p + (v + begin[k]) * strides[k], 0)];
        expect(got.output).toEqual(want);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("takes a ViT's class token out of its tokens: [1, 577, 8] -> [1, 1, 8]", () => {
    const x = randomArray(577 * 8, rng(5));
    const got = runKernel({ op: 'Slice', axes: [1], starts: [0], ends: [1] }, [x], [[1, 577, 8]]);
    expect(got.shape).toEqual([1, 1, 8]);
    expect(got.output).toEqual(x.subarray(0, 8));
  });
});
