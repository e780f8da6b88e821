import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simdEngine } from '../../../../src/backends/cpu/kernels/wasm/engine.ts';
import type { Activation, Layout, OpSpec, Padding, WeightLayout } from '../../../../src/graph/ir.ts';
import { ACTIVATIONS, KERNEL_ENGINES, activate, at4, count, expectClose, randomArray, rng, runKernel, shape4, useKernelEngine } from './helpers.ts';

interface ConvCase {
  layout: Layout;
  n: number;
  h: number;
  w: number;
  c: number;
  o: number;
  kh: number;
  kw: number;
  sh: number;
  sw: number;
  dh: number;
  dw: number;
  padding: Padding;
  groups: number;
  weightLayout: WeightLayout;
  activation: Activation;
  bias: boolean;
}

function describeCase(t: ConvCase): string {
  const pad = t.padding.kind === 'explicit' ? `explicit[${t.padding.pads.join(',')}]` : t.padding.kind;
  return `${t.layout} ${t.n}x${t.h}x${t.w}x${t.c}->${t.o} k${t.kh}x${t.kw} s${t.sh},${t.sw} d${t.dh},${t.dw} ${pad} g${t.groups} ${t.weightLayout} ${t.activation}${t.bias ? '' : ' no-bias'}`;
}

function weightShape(t: ConvCase): number[] {
  const cg = t.c / t.groups;
  switch (t.weightLayout) {
    case 'OHWI':
      return [t.o, t.kh, t.kw, cg];
    case 'OIHW':
      return [t.o, cg, t.kh, t.kw];
    case '1HWO':
      return [1, t.kh, t.kw, t.o];
  }
}

/** W(o, ky, kx, ci) straight from the layout's definition. */
function weightAt(t: ConvCase, weights: Float32Array, o: number, ky: number, kx: number, ci: number): number {
  const cg = t.c / t.groups;
  switch (t.weightLayout) {
    case 'OHWI':
      return weights[((o * t.kh + ky) * t.kw + kx) * cg + ci];
    case 'OIHW':
      return weights[((o * cg + ci) * t.kh + ky) * t.kw + kx];
    case '1HWO':
      return weights[(ky * t.kw + kx) * t.o + o];
  }
}

/** Padding before and output length along one axis, from TF's and ONNX's definitions. */
function axisGeometry(input: number, kernel: number, stride: number, dilation: number, padding: Padding, axis: 0 | 1): { before: number; out: number } {
  const span = (kernel - 1) * dilation + 1;
  if (padding.kind === 'valid') return { before: 0, out: Math.floor((input - span) / stride) + 1 };
  if (padding.kind === 'explicit') {
    const before = padding.pads[axis];
    return { before, out: Math.floor((input + before + padding.pads[axis + 2] - span) / stride) + 1 };
  }
  const out = Math.ceil(input / stride);
  const total = Math.max(0, (out - 1) * stride + span - input);
  return { before: Math.floor(total / 2), out };
}

/** The convolution by its definition: nested loops, float64 sums. */
function referenceConv(t: ConvCase, x: Float32Array, weights: Float32Array, bias: Float32Array | undefined): { out: Float64Array; shape: number[] } {
  const ygeo = axisGeometry(t.h, t.kh, t.sh, t.dh, t.padding, 0);
  const xgeo = axisGeometry(t.w, t.kw, t.sw, t.dw, t.padding, 1);
  const inShape = shape4(t.layout, t.n, t.h, t.w, t.c);
  const shape = shape4(t.layout, t.n, ygeo.out, xgeo.out, t.o);
  const out = new Float64Array(count(shape));
  const cg = t.c / t.groups;
  const og = t.o / t.groups;
  for (let n = 0; n < t.n; n++) {
    for (let oy = 0; oy < ygeo.out; oy++) {
      for (let ox = 0; ox < xgeo.out; ox++) {
        for (let o = 0; o < t.o; o++) {
          const group = Math.floor(o / og);
          let sum = bias ? bias[o] : 0;
          for (let ky = 0; ky < t.kh; ky++) {
            for (let kx = 0; kx < t.kw; kx++) {
              const iy = oy * t.sh - ygeo.before + ky * t.dh;
              const ix = ox * t.sw - xgeo.before + kx * t.dw;
              if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
              for (let ci = 0; ci < cg; ci++) sum += x[at4(t.layout, inShape, n, iy, ix, group * cg + ci)] * weightAt(t, weights, o, ky, kx, ci);
            }
          }
          out[at4(t.layout, shape, n, oy, ox, o)] = activate(sum, t.activation);
        }
      }
    }
  }
  return { out, shape };
}

function spec(t: ConvCase): OpSpec {
  return {
    op: 'Conv',
    kernel: [t.kh, t.kw],
    strides: [t.sh, t.sw],
    dilations: [t.dh, t.dw],
    padding: t.padding,
    groups: t.groups,
    outChannels: t.o,
    weightLayout: t.weightLayout,
    activation: t.activation,
  };
}

function check(t: ConvCase, seed = 1): void {
  const random = rng(seed);
  const inShape = shape4(t.layout, t.n, t.h, t.w, t.c);
  const wShape = weightShape(t);
  const x = randomArray(count(inShape), random);
  const weights = randomArray(count(wShape), random);
  const bias = t.bias ? randomArray(t.o, random) : undefined;
  const want = referenceConv(t, x, weights, bias);
  const got = runKernel(spec(t), [x, weights, bias], [inShape, wShape, bias ? [t.o] : []], t.layout);
  expect(got.shape, describeCase(t)).toEqual(want.shape);
  expectClose(got.output, want.out, 1e-5, describeCase(t));
}

const base: ConvCase = {
  layout: 'NHWC',
  n: 1,
  h: 7,
  w: 8,
  c: 3,
  o: 5,
  kh: 3,
  kw: 3,
  sh: 1,
  sw: 1,
  dh: 1,
  dw: 1,
  padding: { kind: 'same' },
  groups: 1,
  weightLayout: 'OHWI',
  activation: 'none',
  bias: true,
};
const PADDINGS: Padding[] = [{ kind: 'same' }, { kind: 'valid' }, { kind: 'explicit', pads: [1, 0, 2, 1] }, { kind: 'explicit', pads: [0, 2, 1, 0] }];
const withLayout = (layout: Layout, t: Partial<ConvCase>): ConvCase => ({ ...base, layout, weightLayout: layout === 'NHWC' ? 'OHWI' : 'OIHW', ...t });

describe('the SIMD engine', () => {
  it('is available in this Node, with relaxed SIMD (so the tests below run all three engines)', () => {
    expect(simdEngine()).toBeDefined();
    expect(simdEngine()?.relaxed).toBe(true);
  });
});

for (const engine of KERNEL_ENGINES) {
  describe(`Conv kernel against the definition (${engine.title})`, () => {
    useKernelEngine(engine);

    for (const layout of ['NHWC', 'NCHW'] as const) {
      describe(layout, () => {
        it('general convolutions: SAME / VALID / explicit padding, strides 1 and 2, dilation 1 and 2', () => {
          for (const padding of PADDINGS) {
            for (const [sh, sw] of [
              [1, 1],
              [2, 2],
              [2, 1],
            ]) {
              for (const [dh, dw] of [
                [1, 1],
                [2, 2],
                [1, 2],
              ]) {
                check(withLayout(layout, { padding, sh, sw, dh, dw, n: 2, h: 9, w: 8, c: 3, o: 6 }));
              }
            }
          }
        });

        it('kernels 1x1, 1x3, 3x1, 2x2, 5x5 and 7x1; odd channel counts', () => {
          for (const [kh, kw] of [
            [1, 1],
            [1, 3],
            [3, 1],
            [2, 2],
            [5, 5],
            [7, 1],
          ]) {
            for (const padding of PADDINGS.slice(0, 3)) check(withLayout(layout, { kh, kw, padding, c: 5, o: 7, h: 9, w: 10 }));
          }
        });

        it('every fused activation, with and without bias (regular and depthwise)', () => {
          for (const activation of ACTIVATIONS) {
            for (const bias of [true, false]) {
              check(withLayout(layout, { activation, bias, c: 4, o: 9 }));
              check(withLayout(layout, { activation, bias, c: 10, o: 10, groups: 10, h: 9, w: 8, weightLayout: layout === 'NHWC' ? '1HWO' : 'OIHW' }));
            }
          }
        });

        it('1x1 convolutions: stride 1 (the plain GEMM), stride 2, and padding that grows the output', () => {
          check(withLayout(layout, { kh: 1, kw: 1, c: 24, o: 37, h: 6, w: 5, n: 2, activation: 'relu6' }));
          check(withLayout(layout, { kh: 1, kw: 1, c: 8, o: 16, sh: 2, sw: 2, padding: { kind: 'valid' } }));
          check(withLayout(layout, { kh: 1, kw: 1, c: 8, o: 6, padding: { kind: 'explicit', pads: [0, 0, 1, 2] } }));
          check(withLayout(layout, { kh: 1, kw: 1, c: 3, o: 2, h: 1, w: 1 }));
        });

        it('depthwise, multiplier 1 and 2, 3x3 and 5x5, strides 1 and 2, dilation 1 and 2, every padding', () => {
          for (const multiplier of [1, 2]) {
            for (const k of [3, 5]) {
              for (const stride of [1, 2]) {
                for (const dilation of [1, 2]) {
                  for (const padding of PADDINGS) {
                    const weightLayout: WeightLayout = layout === 'NHWC' ? '1HWO' : 'OIHW';
                    check(
                      withLayout(layout, {
                        n: 2,
                        h: 11,
                        w: 10,
                        c: 5,
                        o: 5 * multiplier,
                        kh: k,
                        kw: k,
                        sh: stride,
                        sw: stride,
                        dh: dilation,
                        dw: dilation,
                        padding,
                        groups: 5,
                        weightLayout,
                        activation: 'relu6',
                      }),
                    );
                  }
                }
              }
            }
          }
        });

        it('depthwise 3x3 on maps too small for an interior, and with weights in OHWI / OIHW', () => {
          for (const [h, w] of [
            [1, 1],
            [2, 2],
            [3, 3],
            [2, 7],
            [6, 1],
          ]) {
            for (const stride of [1, 2]) {
              check(withLayout(layout, { h, w, c: 4, o: 4, groups: 4, sh: stride, sw: stride, weightLayout: layout === 'NHWC' ? '1HWO' : 'OIHW' }));
            }
          }
          for (const weightLayout of ['OHWI', 'OIHW'] as const) {
            check(withLayout(layout, { c: 6, o: 12, groups: 6, weightLayout, h: 8, w: 9 }));
          }
        });

        it('grouped convolutions (2 and 3 groups)', () => {
          for (const [groups, c, o] of [
            [2, 4, 6],
            [3, 6, 9],
            [2, 6, 2],
          ]) {
            for (const padding of PADDINGS.slice(0, 3)) {
              check(withLayout(layout, { groups, c, o, padding, sh: 2, sw: 2 }));
              check(withLayout(layout, { groups, c, o, padding, kh: 1, kw: 1 }));
            }
          }
        });

        it('many output pixels and channels: several im2col tiles and GEMM panel blocks', () => {
          check(withLayout(layout, { n: 2, h: 7, w: 6, c: 64, o: 13, kh: 3, kw: 3 }));
          check(withLayout(layout, { n: 1, h: 3, w: 3, c: 2100, o: 23, kh: 1, kw: 1 }));
          check(withLayout(layout, { n: 1, h: 30, w: 31, c: 3, o: 8, kh: 3, kw: 3, sh: 2, sw: 2, activation: 'relu6' }));
          // More pixels than one chunk of rows (512 at 64 + 64 values per row) holds.
          check(withLayout(layout, { n: 2, h: 20, w: 21, c: 64, o: 60, kh: 1, kw: 1, activation: 'relu' }));
          check(withLayout(layout, { n: 1, h: 27, w: 25, c: 16, o: 24, kh: 3, kw: 3 }));
        });
      });
    }

    it('1HWO depthwise weights in an NCHW graph', () => {
      check(withLayout('NCHW', { c: 4, o: 8, groups: 4, weightLayout: '1HWO' }));
    });

    it('random convolutions (fast-check)', () => {
      const arbitrary = fc
        .record({
          layout: fc.constantFrom<Layout>('NHWC', 'NCHW'),
          n: fc.integer({ min: 1, max: 2 }),
          h: fc.integer({ min: 1, max: 9 }),
          w: fc.integer({ min: 1, max: 9 }),
          groups: fc.integer({ min: 1, max: 3 }),
          cg: fc.integer({ min: 1, max: 4 }),
          og: fc.integer({ min: 1, max: 5 }),
          kh: fc.integer({ min: 1, max: 4 }),
          kw: fc.integer({ min: 1, max: 4 }),
          sh: fc.integer({ min: 1, max: 3 }),
          sw: fc.integer({ min: 1, max: 3 }),
          dh: fc.integer({ min: 1, max: 2 }),
          dw: fc.integer({ min: 1, max: 2 }),
          pad: fc.oneof(
            fc.constant<Padding>({ kind: 'same' }),
            fc.constant<Padding>({ kind: 'valid' }),
            fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3), fc.nat(3)).map((pads): Padding => ({ kind: 'explicit', pads })),
          ),
          depthwise: fc.boolean(),
          activation: fc.constantFrom(...ACTIVATIONS),
          bias: fc.boolean(),
          seed: fc.integer({ min: 1, max: 1 << 30 }),
        })
        .map((r) => {
          const c = r.depthwise ? r.groups * 2 : r.groups * r.cg;
          const groups = r.depthwise ? c : r.groups;
          const o = r.depthwise ? c * Math.min(r.og, 2) : r.groups * r.og;
          const t: ConvCase = {
            layout: r.layout,
            n: r.n,
            h: r.h,
            w: r.w,
            c,
            o,
            kh: r.kh,
            kw: r.kw,
            sh: r.sh,
            sw: r.sw,
            dh: r.dh,
            dw: r.dw,
            padding: r.pad,
            groups,
            weightLayout: r.layout === 'NCHW' ? 'OIHW' : r.depthwise ? '1HWO' : 'OHWI',
            activation: r.activation,
            bias: r.bias,
          };
          return { t, seed: r.seed };
        })
        .filter(({ t }) => axisGeometry(t.h, t.kh, t.sh, t.dh, t.padding, 0).out > 0 && axisGeometry(t.w, t.kw, t.sw, t.dw, t.padding, 1).out > 0);
      fc.assert(
        fc.property(arbitrary, ({ t, seed }) => check(t, seed)),
        { seed: 20240601, numRuns: 300 },
      );
    });

    it('same weights array: repacked for each use, and again when its values change', () => {
      const random = rng(7);
      const t = withLayout('NHWC', { c: 4, o: 4, kh: 3, kw: 3 });
      const x = randomArray(count(shape4('NHWC', 1, t.h, t.w, 4)), random);
      const weights = randomArray(4 * 3 * 3 * 4, random);
      const bias = randomArray(4, random);
      const run = (u: ConvCase) => runKernel(spec(u), [x, weights, bias], [[1, t.h, t.w, 4], weightShape(u), [4]], 'NHWC').output;
      // As a regular convolution, then (the same 144 values) as a 2-group one, then regular again.
      expectClose(run(t), referenceConv(t, x, weights, bias).out, 1e-5, 'groups 1');
      const grouped: ConvCase = { ...t, groups: 2 };
      const weights2 = weights.subarray(0, 4 * 3 * 3 * 2);
      const got2 = runKernel(spec(grouped), [x, weights2, bias], [[1, t.h, t.w, 4], weightShape(grouped), [4]], 'NHWC').output;
      expectClose(got2, referenceConv(grouped, x, weights2, bias).out, 1e-5, 'groups 2');
      expectClose(run(t), referenceConv(t, x, weights, bias).out, 1e-5, 'groups 1 again');
      for (let i = 0; i < weights.length; i++) weights[i] = -weights[i] * 0.5;
      expectClose(run(t), referenceConv(t, x, weights, bias).out, 1e-5, 'changed weights');
    });

    it('the reference itself: a hand-computed 3x3 SAME convolution', () => {
      // 1x3x3x1 input 1..9, all-ones 3x3 kernel, SAME: each output sums its valid neighbourhood.
      const t = withLayout('NHWC', { h: 3, w: 3, c: 1, o: 1, bias: false });
      const x = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const weights = new Float32Array(9).fill(1);
      expect(Array.from(referenceConv(t, x, weights, undefined).out)).toEqual([12, 21, 16, 27, 45, 33, 24, 39, 28]);
      expect(Array.from(runKernel(spec(t), [x, weights, undefined], [[1, 3, 3, 1], [1, 3, 3, 1], []]).output)).toEqual([12, 21, 16, 27, 45, 33, 24, 39, 28]);
    });
  });
}
