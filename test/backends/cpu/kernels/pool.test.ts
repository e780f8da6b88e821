import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Activation, Layout, Padding } from '../../../../src/graph/ir.ts';
import { ACTIVATIONS, activate, at4, count, expectClose, indices, randomArray, rng, runKernel, shape4, stridesOf } from './helpers.ts';

interface PoolCase {
  op: 'AveragePool' | 'MaxPool';
  layout: Layout;
  n: number;
  h: number;
  w: number;
  c: number;
  kh: number;
  kw: number;
  sh: number;
  sw: number;
  padding: Padding;
  activation: Activation;
}

function geometry(input: number, kernel: number, stride: number, padding: Padding, axis: 0 | 1): { before: number; out: number } {
  if (padding.kind === 'valid') return { before: 0, out: Math.floor((input - kernel) / stride) + 1 };
  if (padding.kind === 'explicit') return { before: padding.pads[axis], out: Math.floor((input + padding.pads[axis] + padding.pads[axis + 2] - kernel) / stride) + 1 };
  const out = Math.ceil(input / stride);
  return { before: Math.floor(Math.max(0, (out - 1) * stride + kernel - input) / 2), out };
}

/** Pooling by its definition: only the window's pixels inside the input count. */
function reference(t: PoolCase, x: Float32Array): { out: Float64Array; shape: number[] } {
  const gy = geometry(t.h, t.kh, t.sh, t.padding, 0);
  const gx = geometry(t.w, t.kw, t.sw, t.padding, 1);
  const inShape = shape4(t.layout, t.n, t.h, t.w, t.c);
  const shape = shape4(t.layout, t.n, gy.out, gx.out, t.c);
  const out = new Float64Array(count(shape));
  for (let n = 0; n < t.n; n++) {
    for (let oy = 0; oy < gy.out; oy++) {
      for (let ox = 0; ox < gx.out; ox++) {
        for (let c = 0; c < t.c; c++) {
          const values: number[] = [];
          for (let ky = 0; ky < t.kh; ky++) {
            for (let kx = 0; kx < t.kw; kx++) {
              const iy = oy * t.sh - gy.before + ky;
              const ix = ox * t.sw - gx.before + kx;
              if (iy >= 0 && iy < t.h && ix >= 0 && ix < t.w) values.push(x[at4(t.layout, inShape, n, iy, ix, c)]);
            }
          }
          const v = t.op === 'MaxPool' ? Math.max(...values) : values.reduce((s, e) => s + e, 0) / values.length;
          out[at4(t.layout, shape, n, oy, ox, c)] = activate(v, t.activation);
        }
      }
    }
  }
  return { out, shape };
}

function check(t: PoolCase, seed = 1): void {
  const random = rng(seed);
  const inShape = shape4(t.layout, t.n, t.h, t.w, t.c);
  const x = randomArray(count(inShape), random, 3);
  const want = reference(t, x);
  const got = runKernel({ op: t.op, kernel: [t.kh, t.kw], strides: [t.sh, t.sw], padding: t.padding, activation: t.activation }, [x], [inShape], t.layout);
  const what = `${t.op} ${t.layout} ${t.h}x${t.w}x${t.c} k${t.kh}x${t.kw} s${t.sh},${t.sw} ${JSON.stringify(t.padding)} ${t.activation}`;
  expect(got.shape, what).toEqual(want.shape);
  expectClose(got.output, want.out, 1e-5, what);
}

describe('AveragePool and MaxPool', () => {
  for (const op of ['AveragePool', 'MaxPool'] as const) {
    for (const layout of ['NHWC', 'NCHW'] as const) {
      it(`${op} ${layout}: SAME (the average counts only valid pixels), VALID, explicit; strides 1 and 2`, () => {
        const paddings: Padding[] = [{ kind: 'same' }, { kind: 'valid' }, { kind: 'explicit', pads: [1, 1, 1, 1] }, { kind: 'explicit', pads: [0, 2, 1, 0] }];
        for (const padding of paddings) {
          for (const [kh, kw] of [
            [3, 3],
            [2, 2],
            [1, 3],
            [3, 2],
          ]) {
            // (Explicit pads at least as wide as the window would leave windows with no pixel.)
            if (padding.kind === 'explicit' && (Math.max(padding.pads[0], padding.pads[2]) >= kh || Math.max(padding.pads[1], padding.pads[3]) >= kw)) continue;
            for (const stride of [1, 2]) check({ op, layout, n: 2, h: 7, w: 6, c: 3, kh, kw, sh: stride, sw: stride, padding, activation: 'none' });
          }
        }
        // The whole map (the classifier heads), and every fused activation.
        check({ op, layout, n: 1, h: 7, w: 7, c: 5, kh: 7, kw: 7, sh: 1, sw: 1, padding: { kind: 'valid' }, activation: 'none' });
        for (const activation of ACTIVATIONS) check({ op, layout, n: 1, h: 5, w: 5, c: 4, kh: 3, kw: 3, sh: 2, sw: 2, padding: { kind: 'same' }, activation });
      });
    }
  }

  it('SAME average pooling at a corner divides by the valid pixels (hand-computed)', () => {
    // 1x2x2x1 input [1, 2, 3, 4], 3x3 SAME stride 1: every window holds all four pixels.
    const got = runKernel({ op: 'AveragePool', kernel: [3, 3], strides: [1, 1], padding: { kind: 'same' }, activation: 'none' }, [Float32Array.from([1, 2, 3, 4])], [[1, 2, 2, 1]]);
    expect(Array.from(got.output)).toEqual([2.5, 2.5, 2.5, 2.5]);
  });

  it('a window with no pixel inside the input: average 0, max the lowest float (as TFLite starts its max)', () => {
    const x = Float32Array.from([1, 2, 3, 4]);
    const spec = { kernel: [1, 1] as const, strides: [1, 1] as const, padding: { kind: 'explicit', pads: [1, 0, 0, 0] } as const, activation: 'none' as const };
    expect(Array.from(runKernel({ op: 'AveragePool', ...spec }, [x], [[1, 2, 2, 1]]).output)).toEqual([0, 0, 1, 2, 3, 4]);
    expect(Array.from(runKernel({ op: 'MaxPool', ...spec }, [x], [[1, 2, 2, 1]]).output)).toEqual([Math.fround(-3.4028234663852886e38), Math.fround(-3.4028234663852886e38), 1, 2, 3, 4]);
  });

  it('random pools (fast-check)', () => {
    const arbitrary = fc.record({
      op: fc.constantFrom('AveragePool' as const, 'MaxPool' as const),
      layout: fc.constantFrom<Layout>('NHWC', 'NCHW'),
      n: fc.integer({ min: 1, max: 2 }),
      h: fc.integer({ min: 1, max: 8 }),
      w: fc.integer({ min: 1, max: 8 }),
      c: fc.integer({ min: 1, max: 5 }),
      kh: fc.integer({ min: 1, max: 4 }),
      kw: fc.integer({ min: 1, max: 4 }),
      sh: fc.integer({ min: 1, max: 3 }),
      sw: fc.integer({ min: 1, max: 3 }),
      padding: fc.constantFrom<Padding>({ kind: 'same' }, { kind: 'valid' }, { kind: 'explicit', pads: [1, 0, 1, 2] }),
      activation: fc.constantFrom(...ACTIVATIONS),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(
        arbitrary.filter((t) => geometry(t.h, t.kh, t.sh, t.padding, 0).out > 0 && geometry(t.w, t.kw, t.sw, t.padding, 1).out > 0 && (t.padding.kind !== 'explicit' || (t.kh > 1 && t.kw > 2))),
        (t) => check(t, t.seed),
      ),
      { seed: 77, numRuns: 200 },
    );
  });
});

describe('GlobalAveragePool', () => {
  for (const layout of ['NHWC', 'NCHW'] as const) {
    it(`${layout}: the mean over height and width of each channel`, () => {
      const random = rng(21);
      for (const [n, h, w, c] of [
        [1, 7, 7, 5],
        [2, 3, 4, 6],
        [1, 1, 1, 3],
      ]) {
        const inShape = shape4(layout, n, h, w, c);
        const x = randomArray(count(inShape), random);
        const want = new Float64Array(n * c);
        for (let b = 0; b < n; b++) {
          for (let ch = 0; ch < c; ch++) {
            let sum = 0;
            for (let y = 0; y < h; y++) for (let xx = 0; xx < w; xx++) sum += x[at4(layout, inShape, b, y, xx, ch)];
            want[b * c + ch] = sum / (h * w);
          }
        }
        const got = runKernel({ op: 'GlobalAveragePool' }, [x], [inShape], layout);
        expect(got.shape).toEqual(shape4(layout, n, 1, 1, c));
        expectClose(got.output, want, 1e-6, `GlobalAveragePool ${layout} [${inShape}]`);
      }
    });
  }
});

describe('Mean', () => {
  it('any axes (negative too), keepDims or not', () => {
    const random = rng(23);
    for (const [shape, axes] of [
      [
        [2, 3, 4, 5],
        [1, 2],
      ],
      [[2, 3, 4, 5], [-1]],
      [[2, 3, 4, 5], [0]],
      [
        [2, 3, 4, 5],
        [0, 3],
      ],
      [
        [2, 3, 4, 5],
        [0, 1, 2, 3],
      ],
      [
        [2, 3, 4, 5],
        [2, -3],
      ],
      [[6], [0]],
      [[3, 7], [1]],
      [[3, 1, 7], [1]],
    ] as const) {
      for (const keepDims of [true, false]) {
        const x = randomArray(count(shape), random);
        const rank = shape.length;
        const reduced = new Set(axes.map((a) => (a < 0 ? a + rank : a)));
        const outFull = shape.map((d, k) => (reduced.has(k) ? 1 : d));
        const sums = new Float64Array(count(outFull));
        const outStrides = stridesOf(outFull);
        const inStrides = stridesOf(shape);
        for (const index of indices(shape)) {
          let o = 0;
          let i = 0;
          for (let k = 0; k < rank; k++) {
            o += (reduced.has(k) ? 0 : index[k]) * outStrides[k];
            i += index[k] * inStrides[k];
          }
          sums[o] += x[i];
        }
        const divisor = shape.filter((_, k) => reduced.has(k)).reduce((p: number, d: number) => p * d, 1);
        const want = sums.map((s) => s / divisor);
        const got = runKernel({ op: 'Mean', axes, keepDims }, [x], [shape]);
        expect(got.shape).toEqual(keepDims ? outFull : shape.filter((_, k) => !reduced.has(k)));
        expectClose(got.output, want, 1e-6, `Mean [${shape}] axes [${axes}] keepDims=${keepDims}`);
      }
    }
  });
});
