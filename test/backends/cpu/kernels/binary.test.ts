import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Activation } from '../../../../src/graph/ir.ts';
import { ACTIVATIONS, activate, count, expectClose, indices, randomArray, rng, runKernel, stridesOf } from './helpers.ts';

/** numpy broadcasting by its definition: each output index maps to each input's index. */
function reference(op: 'Add' | 'Mul', a: Float32Array, aShape: readonly number[], b: Float32Array, bShape: readonly number[], activation: Activation): { out: Float64Array; shape: number[] } {
  const rank = Math.max(aShape.length, bShape.length);
  const pa = [...new Array<number>(rank - aShape.length).fill(1), ...aShape];
  const pb = [...new Array<number>(rank - bShape.length).fill(1), ...bShape];
  const shape = pa.map((d, k) => (d === 1 ? pb[k] : d));
  const sa = stridesOf(pa);
  const sb = stridesOf(pb);
  const out = new Float64Array(count(shape));
  let o = 0;
  for (const index of indices(shape)) {
    let ia = 0;
    let ib = 0;
    for (let k = 0; k < rank; k++) {
      ia += (pa[k] === 1 ? 0 : index[k]) * sa[k];
      ib += (pb[k] === 1 ? 0 : index[k]) * sb[k];
    }
    out[o++] = activate(op === 'Add' ? a[ia] + b[ib] : a[ia] * b[ib], activation);
  }
  return { out, shape };
}

const SHAPES: readonly (readonly [readonly number[], readonly number[]])[] = [
  [
    [2, 3, 4, 5],
    [2, 3, 4, 5],
  ],
  [[2, 3, 4, 5], []],
  [[2, 3, 4, 5], [1]],
  [[], [2, 3, 4, 5]],
  [[2, 3, 4, 5], [5]],
  [[5], [2, 3, 4, 5]],
  [
    [2, 3, 4, 5],
    [1, 3, 1, 1],
  ],
  [
    [1, 3, 1, 1],
    [2, 3, 4, 5],
  ],
  [
    [2, 3, 4, 5],
    [3, 4, 5],
  ],
  [
    [2, 3, 4, 5],
    [1, 1, 4, 1],
  ],
  [
    [2, 1, 4, 1],
    [1, 3, 1, 5],
  ],
  [
    [2, 3, 1, 5],
    [2, 1, 4, 1],
  ],
  [
    [4, 1],
    [1, 6],
  ],
  [[1], [1]],
  [
    [3, 1, 5],
    [3, 4, 5],
  ],
];

describe('Add and Mul', () => {
  for (const op of ['Add', 'Mul'] as const) {
    it(`${op}: every broadcasting pattern, every fused activation`, () => {
      const random = rng(op === 'Add' ? 11 : 12);
      for (const [aShape, bShape] of SHAPES) {
        for (const activation of ACTIVATIONS) {
          const a = randomArray(count(aShape), random, 4);
          const b = randomArray(count(bShape), random, 4);
          const want = reference(op, a, aShape, b, bShape, activation);
          const got = runKernel({ op, activation }, [a, b], [aShape, bShape]);
          expect(got.shape).toEqual(want.shape);
          expectClose(got.output, want.out, 1e-6, `${op} [${aShape}] [${bShape}] ${activation}`);
        }
      }
    });
  }

  it('random shapes that broadcast (fast-check)', () => {
    const arbitrary = fc
      .record({
        out: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 5 }),
        maskA: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        maskB: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        dropA: fc.nat(5),
        dropB: fc.nat(5),
        op: fc.constantFrom('Add' as const, 'Mul' as const),
        activation: fc.constantFrom(...ACTIVATIONS),
        seed: fc.nat(),
      })
      .map((r) => {
        const aShape = r.out.map((d, k) => (r.maskA[k] ? 1 : d)).slice(Math.min(r.dropA, r.out.length));
        const bShape = r.out.map((d, k) => (r.maskB[k] ? 1 : d)).slice(Math.min(r.dropB, r.out.length));
        return { ...r, aShape, bShape };
      });
    fc.assert(
      fc.property(arbitrary, ({ op, aShape, bShape, activation, seed }) => {
        const random = rng(seed);
        const a = randomArray(count(aShape), random, 3);
        const b = randomArray(count(bShape), random, 3);
        const want = reference(op, a, aShape, b, bShape, activation);
        const got = runKernel({ op, activation }, [a, b], [aShape, bShape]);
        expect(got.shape).toEqual(want.shape);
        expectClose(got.output, want.out, 1e-6, `${op} [${aShape}] [${bShape}] ${activation}`);
      }),
      { seed: 424242, numRuns: 300 },
    );
  });
});
