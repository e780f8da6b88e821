import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, indices, randomArray, rng, runKernel, stridesOf } from './helpers.ts';

/** Gather straight from its definition: out[i.., j.., k..] = data[i.., indices[j..], k..]. */
function reference(data: Float32Array, shape: readonly number[], ids: Float32Array, idShape: readonly number[], axis: number): Float32Array {
  const outShape = [...shape.slice(0, axis), ...idShape, ...shape.slice(axis + 1)];
  const out = new Float32Array(count(outShape));
  const strides = stridesOf(shape);
  let o = 0;
  for (const index of indices(outShape)) {
    const before = index.slice(0, axis);
    const id = index.slice(axis, axis + idShape.length).reduce((p, v, k) => p * idShape[k] + v, 0);
    const after = index.slice(axis + idShape.length);
    const row = ids[id] < 0 ? ids[id] + shape[axis] : ids[id];
    out[o++] = data[[...before, row, ...after].reduce((p, v, k) => p + v * strides[k], 0)];
  }
  return out;
}

describe('Gather', () => {
  it('picks slabs along any axis by whole-number indices, negative ones from the end (fast-check)', () => {
    const arbitrary = fc.record({
      shape: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
      idShape: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 2 }),
      axisPick: fc.nat(),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(arbitrary, ({ shape, idShape, axisPick, seed }) => {
        const random = rng(seed);
        const axis = axisPick % shape.length;
        const data = randomArray(count(shape), random);
        const ids = Float32Array.from({ length: count(idShape) }, () => Math.floor(random() * 2 * shape[axis]) - shape[axis]);
        const got = runKernel({ op: 'Gather', axis }, [data, ids], [shape, idShape]);
        expect(got.shape).toEqual([...shape.slice(0, axis), ...idShape, ...shape.slice(axis + 1)]);
        expect(got.output).toEqual(reference(data, shape, ids, idShape, axis));
      }),
      { seed: 1717, numRuns: 200 },
    );
  });

  it('an embedding lookup: rows of [vocabulary, features] per token of [1, T]', () => {
    const table = randomArray(50 * 8, rng(3));
    const tokens = Float32Array.from([0, 49, 7, 7, 12]);
    const got = runKernel(
      { op: 'Gather', axis: 0 },
      [table, tokens],
      [
        [50, 8],
        [1, 5],
      ],
    );
    expect(got.shape).toEqual([1, 5, 8]);
    for (let t = 0; t < 5; t++) expect(got.output.subarray(t * 8, t * 8 + 8)).toEqual(table.subarray(tokens[t] * 8, tokens[t] * 8 + 8));
  });

  it("a chain of slices of the table (weight slicing) gives the whole table's result bit for bit", () => {
    const random = rng(9);
    const table = randomArray(23 * 6, random);
    const tokens = Float32Array.from([22, 0, 5, -1, 11, 12, 5, 17]);
    const whole = runKernel({ op: 'Gather', axis: 0 }, [table, tokens], [[23, 6], [8]]).output;
    let previous: Float32Array | undefined;
    for (let start = 0; start < 23; start += 5) {
      const rows = Math.min(5, 23 - start);
      const part = table.slice(start * 6, (start + rows) * 6);
      const inputs = previous === undefined ? [part, tokens] : [part, tokens, previous];
      const shapes = previous === undefined ? [[rows, 6], [8]] : [[rows, 6], [8], [8, 6]];
      previous = runKernel({ op: 'Gather', axis: 0, rows: { start, of: 23 } }, inputs, shapes).output;
    }
    expect(previous).toEqual(whole);
  });

  it('refuses an index outside the table or not a whole number, naming the node', () => {
    const table = randomArray(4 * 2, rng(1));
    expect(() => runKernel({ op: 'Gather', axis: 0 }, [table, Float32Array.from([4])], [[4, 2], [1]])).toThrow(/test-Gather \(Gather\): index 4 at position 0 is not a whole number in \[-4, 4\)/);
    expect(() => runKernel({ op: 'Gather', axis: 0 }, [table, Float32Array.from([1.5])], [[4, 2], [1]])).toThrow(/index 1.5/);
  });
});
