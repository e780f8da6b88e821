import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packedPlacement } from '../../../src/backends/cpu/weight-placement.ts';
import { PANEL } from '../../../src/backends/cpu/kernels/gemm.ts';
import { packedFloats } from '../../../src/graph/layer-memory.ts';

/** Where value e of a [groups * perGroup][k] matrix goes in the packed operands, one value at a time: the definition. */
function packedIndex(e: number, k: number, perGroup: number, column: (within: number) => number): number {
  const o = Math.floor(e / k);
  const group = Math.floor(o / perGroup);
  const j = o - group * perGroup;
  return group * packedFloats(k, perGroup) + Math.floor(j / PANEL) * PANEL * k + column(e % k) * PANEL + (j % PANEL);
}

describe('a weight matrix packed into GEMM panels', () => {
  it('puts every value where the definition says, whatever runs the values come in', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 }),
        (k, perGroup, groups, reversed, cuts) => {
          const column = reversed ? (within: number) => k - 1 - within : (within: number) => within;
          const total = k * perGroup * groups;
          const values = Float32Array.from({ length: total }, (_, e) => e + 1);
          const expected = new Float32Array(groups * packedFloats(k, perGroup));
          for (let e = 0; e < total; e++) expected[packedIndex(e, k, perGroup, column)] = values[e];
          const target = new Float32Array(expected.length);
          const placement = packedPlacement('w', k, perGroup, column);
          // The values arrive in runs of the given lengths (a seeded stream, a file), the last run whatever is left.
          let at = 0;
          for (const cut of [...cuts, total]) {
            const end = Math.min(total, at + cut);
            placement.write(values.subarray(at, end), at, target);
            at = end;
            if (at === total) break;
          }
          expect(target).toEqual(expected);
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});
