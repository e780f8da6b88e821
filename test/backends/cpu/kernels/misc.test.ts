import { describe, expect, it } from 'vitest';
import type { OpSpec } from '../../../../src/graph/ir.ts';
import { ACTIVATIONS, activate, count, expectClose, indices, randomArray, rng, runKernel, stridesOf } from './helpers.ts';

describe('Concat', () => {
  it('along every axis (negative too), of 1 to 3 inputs, with a fused activation', () => {
    const random = rng(31);
    const baseShape = [2, 3, 4, 5];
    for (const axis of [0, 1, 2, 3, -1, -3]) {
      const a = axis < 0 ? axis + 4 : axis;
      for (const sizes of [[1], [2, 3], [1, 4, 2]]) {
        for (const activation of ['none', 'relu6', 'tanh'] as const) {
          const shapes = sizes.map((s) => baseShape.map((d, k) => (k === a ? s : d)));
          const inputs = shapes.map((s) => randomArray(count(s), random, 8));
          const outShape = baseShape.map((d, k) => (k === a ? sizes.reduce((p, q) => p + q, 0) : d));
          // Definition: output index i along the axis comes from the input whose range holds i.
          const want = new Float64Array(count(outShape));
          let o = 0;
          for (const index of indices(outShape)) {
            let along = index[a];
            let which = 0;
            while (along >= sizes[which]) along -= sizes[which++];
            const source = [...index];
            source[a] = along;
            const strides = stridesOf(shapes[which]);
            want[o++] = activate(inputs[which][source.reduce((s, v, k) => s + v * strides[k], 0)], activation);
          }
          const got = runKernel({ op: 'Concat', axis, activation }, inputs, shapes);
          expect(got.shape).toEqual(outShape);
          expectClose(got.output, want, 1e-6, `Concat axis ${axis} sizes [${sizes}] ${activation}`);
        }
      }
    }
  });
});

describe('Pad', () => {
  it('zeros before and after each dimension, ranks 1 to 4', () => {
    const random = rng(33);
    for (const [shape, pads] of [
      [[5], [[2, 1]]],
      [
        [3, 4],
        [
          [0, 0],
          [1, 2],
        ],
      ],
      [
        [2, 3, 4],
        [
          [1, 0],
          [0, 0],
          [2, 2],
        ],
      ],
      [
        [1, 4, 4, 3],
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 5],
        ],
      ],
      [
        [1, 4, 4, 3],
        [
          [0, 0],
          [1, 1],
          [2, 0],
          [0, 0],
        ],
      ],
      [
        [2, 2, 2, 2],
        [
          [1, 1],
          [1, 1],
          [1, 1],
          [1, 1],
        ],
      ],
      [
        [2, 2],
        [
          [0, 0],
          [0, 0],
        ],
      ],
    ] as const) {
      const x = randomArray(count(shape), random);
      const outShape = shape.map((d, k) => d + pads[k][0] + pads[k][1]);
      const want = new Float64Array(count(outShape));
      const inStrides = stridesOf(shape);
      let o = 0;
      for (const index of indices(outShape)) {
        const source = index.map((v, k) => v - pads[k][0]);
        want[o++] = source.every((v, k) => v >= 0 && v < shape[k]) ? x[source.reduce((s, v, k) => s + v * inStrides[k], 0)] : 0;
      }
      const got = runKernel({ op: 'Pad', pads }, [x], [shape]);
      expect(got.shape).toEqual(outShape);
      expect(Array.from(got.output)).toEqual(Array.from(want));
    }
  });
});

describe('Reshape, Flatten, Squeeze, Dequantize', () => {
  it('copy the values into the output (its own memory, never the input)', () => {
    const random = rng(35);
    const x = randomArray(24, random);
    const cases: [OpSpec, number[]][] = [
      [{ op: 'Reshape', shape: [4, -1] }, [2, 3, 4]],
      [{ op: 'Flatten', axis: 1 }, [2, 3, 4]],
      [{ op: 'Squeeze', axes: [1] }, [2, 1, 12]],
      [{ op: 'Dequantize' }, [2, 3, 4]],
    ];
    for (const [spec, shape] of cases) {
      const got = runKernel(spec, [x], [shape]);
      expect(got.output).not.toBe(x);
      expect(got.output.buffer).not.toBe(x.buffer);
      expect(Array.from(got.output)).toEqual(Array.from(x));
    }
  });
});

describe('Softmax', () => {
  it('along the last, first and a middle axis, with beta; large values stay finite', () => {
    const random = rng(37);
    for (const [shape, axis] of [
      [[2, 1001], -1],
      [[3, 4, 5], 1],
      [[3, 4, 5], 0],
      [[1, 2, 3, 4], 3],
      [[6], 0],
    ] as const) {
      for (const [beta, scale] of [
        [1, 3],
        [0.5, 3],
        [2, 1000],
      ]) {
        const x = randomArray(count(shape), random, scale);
        const a = axis < 0 ? axis + shape.length : axis;
        const strides = stridesOf(shape);
        const want = new Float64Array(x.length);
        for (const index of indices(shape)) {
          const offset = index.reduce((s, v, k) => s + v * strides[k], 0);
          const line = (j: number): number => offset + (j - index[a]) * strides[a];
          let max = -Infinity;
          for (let j = 0; j < shape[a]; j++) max = Math.max(max, x[line(j)]);
          let sum = 0;
          for (let j = 0; j < shape[a]; j++) sum += Math.exp(beta * (x[line(j)] - max));
          want[offset] = Math.exp(beta * (x[offset] - max)) / sum;
        }
        const got = runKernel({ op: 'Softmax', axis, beta }, [x], [shape]);
        expectClose(got.output, want, 1e-5, `Softmax [${shape}] axis ${axis} beta ${beta}`);
      }
    }
  });
});

describe('Relu, Relu6, Sigmoid, Tanh', () => {
  it('apply their functions element by element', () => {
    const random = rng(39);
    const x = randomArray(1000, random, 10);
    for (const [op, activation] of [
      ['Relu', 'relu'],
      ['Relu6', 'relu6'],
      ['Sigmoid', 'sigmoid'],
      ['Tanh', 'tanh'],
    ] as const) {
      const got = runKernel({ op }, [x], [[10, 100]]);
      expectClose(
        got.output,
        Array.from(x, (v) => activate(v, activation)),
        1e-6,
        op,
      );
    }
    expect(ACTIVATIONS.length).toBe(6);
  });
});
