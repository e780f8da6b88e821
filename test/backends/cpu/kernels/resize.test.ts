import { describe, expect, it } from 'vitest';
import type { Layout } from '../../../../src/graph/ir.ts';
import { at4, count, expectClose, randomArray, rng, runKernel, shape4 } from './helpers.ts';

const f = Math.fround;

/**
 * TFLite's resize_bilinear / resize_nearest_neighbor reference kernels, transcribed per
 * output pixel: the scale and the source coordinate are float32 values.
 */
function reference(
  mode: 'bilinear' | 'nearest',
  layout: Layout,
  x: Float32Array,
  n: number,
  h: number,
  w: number,
  c: number,
  oh: number,
  ow: number,
  alignCorners: boolean,
  halfPixelCenters: boolean,
): Float64Array {
  const inShape = shape4(layout, n, h, w, c);
  const outShape = shape4(layout, n, oh, ow, c);
  const out = new Float64Array(count(outShape));
  const scale = (input: number, output: number): number => (alignCorners && output > 1 ? f(f(input - 1) / f(output - 1)) : f(f(input) / f(output)));
  const hs = scale(h, oh);
  const ws = scale(w, ow);
  for (let b = 0; b < n; b++) {
    for (let y = 0; y < oh; y++) {
      for (let xx = 0; xx < ow; xx++) {
        for (let ch = 0; ch < c; ch++) {
          let value: number;
          if (mode === 'bilinear') {
            const inY = halfPixelCenters ? f(f(f(y + 0.5) * hs) - 0.5) : f(y * hs);
            const inX = halfPixelCenters ? f(f(f(xx + 0.5) * ws) - 0.5) : f(xx * ws);
            const y0 = Math.max(Math.floor(inY), 0);
            const y1 = Math.min(Math.ceil(inY), h - 1);
            const x0 = Math.max(Math.floor(inX), 0);
            const x1 = Math.min(Math.ceil(inX), w - 1);
            const v = (yy: number, xv: number): number => x[at4(layout, inShape, b, yy, xv, ch)];
            value = v(y0, x0) * (1 - (inY - y0)) * (1 - (inX - x0)) + v(y1, x0) * (inY - y0) * (1 - (inX - x0)) + v(y0, x1) * (1 - (inY - y0)) * (inX - x0) + v(y1, x1) * (inY - y0) * (inX - x0);
          } else {
            const nearest = (o: number, size: number, s: number): number => {
              const p = f(f(o + (halfPixelCenters ? 0.5 : 0)) * s);
              let i = Math.min(alignCorners ? Math.sign(p) * Math.floor(Math.abs(p) + 0.5) : Math.floor(p), size - 1);
              if (halfPixelCenters) i = Math.max(0, i);
              return i;
            };
            value = x[at4(layout, inShape, b, nearest(y, h, hs), nearest(xx, w, ws), ch)];
          }
          out[at4(layout, outShape, b, y, xx, ch)] = value;
        }
      }
    }
  }
  return out;
}

function run(mode: 'bilinear' | 'nearest', layout: Layout, x: Float32Array, inShape: number[], size: [number, number], alignCorners: boolean, halfPixelCenters: boolean): Float32Array {
  return runKernel({ op: 'Resize', mode, size, alignCorners, halfPixelCenters }, [x], [inShape], layout).output;
}

describe('Resize', () => {
  it('bilinear, hand-computed: alignCorners, plain, halfPixelCenters', () => {
    const x = Float32Array.from([0, 1, 2, 3]); // 1x2x2x1
    expect(Array.from(run('bilinear', 'NHWC', x, [1, 2, 2, 1], [3, 3], true, false))).toEqual([0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3]);
    const row = Float32Array.from([0, 1]); // 1x1x2x1
    expect(Array.from(run('bilinear', 'NHWC', row, [1, 1, 2, 1], [1, 4], false, false))).toEqual([0, 0.5, 1, 1]);
    expect(Array.from(run('bilinear', 'NHWC', row, [1, 1, 2, 1], [1, 4], false, true))).toEqual([0, 0.25, 0.75, 1]);
  });

  it('nearest, hand-computed', () => {
    const row = Float32Array.from([10, 20, 30]); // 1x1x3x1
    expect(Array.from(run('nearest', 'NHWC', row, [1, 1, 3, 1], [1, 5], true, false))).toEqual([10, 20, 20, 30, 30]);
    expect(Array.from(run('nearest', 'NHWC', row, [1, 1, 3, 1], [1, 5], false, false))).toEqual([10, 10, 20, 20, 30]);
    expect(Array.from(run('nearest', 'NHWC', row, [1, 1, 3, 1], [1, 2], false, true))).toEqual([10, 30]);
  });

  for (const layout of ['NHWC', 'NCHW'] as const) {
    it(`${layout}: up, down and identity sizes; alignCorners true / false; halfPixelCenters`, () => {
      const random = rng(41);
      for (const mode of ['bilinear', 'nearest'] as const) {
        for (const [h, w, oh, ow] of [
          [4, 5, 8, 10],
          [5, 4, 3, 7],
          [33, 33, 33, 33],
          [3, 3, 257 % 20, 11],
          [1, 1, 3, 2],
          [6, 6, 1, 1],
          [7, 3, 13, 5],
        ]) {
          for (const [alignCorners, halfPixelCenters] of [
            [false, false],
            [true, false],
            [false, true],
          ]) {
            const n = 2;
            const c = 3;
            const inShape = shape4(layout, n, h, w, c);
            const x = randomArray(count(inShape), random);
            const want = reference(mode, layout, x, n, h, w, c, oh, ow, alignCorners, halfPixelCenters);
            const got = run(mode, layout, x, inShape, [oh, ow], alignCorners, halfPixelCenters);
            expectClose(got, want, 1e-6, `${mode} ${layout} ${h}x${w}->${oh}x${ow} align=${alignCorners} half=${halfPixelCenters}`);
          }
        }
      }
    });
  }

  it('an identity resize (DeepLab keeps one) reproduces its input', () => {
    const random = rng(43);
    const x = randomArray(2 * 5 * 6 * 3, random);
    for (const alignCorners of [true, false]) {
      expectClose(run('bilinear', 'NHWC', x, [2, 5, 6, 3], [5, 6], alignCorners, false), x, 1e-7, 'identity');
    }
  });
});
