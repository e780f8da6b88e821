import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, expectClose, randomArray, rng, runKernel } from './helpers.ts';

/** LayerNormalization from its definition, in float64: per run of the trailing axes, (x - mean) / sqrt(var + eps) * scale + bias. */
function reference(x: Float32Array, shape: readonly number[], axis: number, scale: Float32Array, bias: Float32Array | undefined, epsilon: number): Float64Array {
  const width = count(shape.slice(axis));
  const out = new Float64Array(x.length);
  for (let base = 0; base < x.length; base += width) {
    const row = Array.from(x.subarray(base, base + width));
    const mean = row.reduce((a, v) => a + v, 0) / width;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / width;
    row.forEach((v, k) => {
      out[base + k] = ((v - mean) / Math.sqrt(variance + epsilon)) * scale[scale.length === 1 ? 0 : k] + (bias === undefined ? 0 : bias[bias.length === 1 ? 0 : k]);
    });
  }
  return out;
}

describe('LayerNormalization', () => {
  it('normalizes every run of the axes from `axis` on, then scales and shifts (fast-check)', () => {
    const arbitrary = fc.record({
      shape: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
      axisPick: fc.nat(),
      negative: fc.boolean(),
      withBias: fc.boolean(),
      scalarScale: fc.boolean(),
      offset: fc.double({ min: -100, max: 100, noNaN: true }),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(arbitrary, ({ shape, axisPick, negative, withBias, scalarScale, offset, seed }) => {
        const random = rng(seed);
        const axis = axisPick % shape.length;
        const width = count(shape.slice(axis));
        // An offset far from 0: a one-pass sum of squares in float32 would cancel.
        const x = randomArray(count(shape), random, 2).map((v) => v + offset);
        const scale = randomArray(scalarScale ? 1 : width, random);
        const scaleShape = scalarScale ? [1] : shape.slice(axis);
        const bias = withBias ? randomArray(width, random) : undefined;
        const got = runKernel({ op: 'LayerNormalization', axis: negative ? axis - shape.length : axis, epsilon: 1e-5 }, [x, scale, bias], [shape, scaleShape, shape.slice(axis)]);
        expect(got.shape).toEqual(shape);
        expectClose(got.output, reference(x, shape, axis, scale, bias, 1e-5), 1e-5, `[${shape}] axis ${axis}`);
      }),
      { seed: 2024, numRuns: 200 },
    );
  });

  it('a transformer row: [1, 5, 768] over its features', () => {
    const random = rng(4);
    const x = randomArray(5 * 768, random, 3);
    const scale = randomArray(768, random);
    const bias = randomArray(768, random);
    const got = runKernel({ op: 'LayerNormalization', axis: -1, epsilon: 1e-6 }, [x, scale, bias], [[1, 5, 768], [768], [768]]);
    expectClose(got.output, reference(x, [1, 5, 768], 2, scale, bias, 1e-6), 1e-6);
  });
});
