import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArenaContext } from '../../../src/backends/cpu/arena-context.ts';
import { arenaOpKernel } from '../../../src/backends/cpu/arena-op-kernels.ts';
import { sharedMemory, simdEngineOn } from '../../../src/backends/cpu/kernels/wasm/engine.ts';
import { elementCount, type Activation, type Graph, type Layout, type Node, type OpSpec, type Tensor } from '../../../src/graph/ir.ts';
import { inferOutputShapes } from '../../../src/graph/shape-inference.ts';
import { expectClose, randomArray, rng, runKernel } from './kernels/helpers.ts';

/** One op laid out in a shared memory as the executor lays it out: its inputs, then its output, each where `at` says. */
function arenaOf(spec: OpSpec, shapes: readonly (readonly number[])[], options: { layout?: Layout; constant?: number } = {}): { context: ArenaContext; node: Node; outShape: readonly number[] } {
  const layout = options.layout ?? 'NHWC';
  const names = shapes.map((_, k) => `x${k}`);
  const node = { ...spec, name: 'op', inputs: names, outputs: ['y'] } as Node;
  const outShape = inferOutputShapes(node, shapes, layout)[0];
  const tensors = new Map<string, Tensor>();
  shapes.forEach((shape, k) => tensors.set(names[k], { name: names[k], shape, dtype: 'float32', constant: options.constant === k }));
  tensors.set('y', { name: 'y', shape: outShape, dtype: 'float32', constant: false });
  const graph: Graph = { name: 'one-op', layout, tensors, nodes: [node], inputs: names, outputs: ['y'] };
  const offsets = new Map<string, number>();
  let top = 16; // after the kernels' 64-byte temporary area
  for (const [name, tensor] of tensors) {
    offsets.set(name, top);
    top += Math.ceil(elementCount(tensor.shape) / 16) * 16 + 16;
  }
  const memory = sharedMemory(Math.ceil((top * 4) / 65536) + 1);
  const engine = simdEngineOn(memory!);
  if (engine === undefined) throw new Error('no SIMD engine on a shared memory in this Node');
  return { context: { graph, engine, heap: engine.heap(), at: (id) => offsets.get(id) ?? -1 }, node, outShape };
}

/** The op run by the engine's kernel where its tensors lie, on seeded inputs of magnitude up to 3, its output NaN before. */
function engineRun(spec: OpSpec, shapes: readonly (readonly number[])[], seed: number): { inputs: Float32Array[]; got: Float32Array; outShape: readonly number[] } {
  const { context, node, outShape } = arenaOf(spec, shapes);
  const random = rng(seed);
  const inputs = shapes.map((shape) => randomArray(elementCount(shape), random, 3));
  inputs.forEach((x, k) => context.heap.set(x, context.at(`x${k}`)));
  const y = context.at('y');
  context.heap.fill(Number.NaN, y, y + elementCount(outShape));
  const kernel = arenaOpKernel(node, context);
  expect(kernel, `${spec.op} on ${JSON.stringify(shapes)}: the engine takes it`).toBeDefined();
  kernel?.();
  return { inputs, got: context.heap.subarray(y, y + elementCount(outShape)), outShape };
}

/**
 * The op run by the engine (engineRun), and by the TypeScript kernel on arrays of its own.
 * `floor`: the error is taken relative to at least this magnitude, for an engine that sums
 * in float32 (an average's error follows its inputs' magnitude, which a small average does
 * not show).
 */
function compare(spec: OpSpec, shapes: readonly (readonly number[])[], seed: number, tolerance = 1e-6, floor = 0): void {
  const { inputs, got, outShape } = engineRun(spec, shapes, seed);
  const want = runKernel(spec, inputs, shapes, 'NHWC', outShape).output;
  if (floor > 0) want.forEach((value, i) => expect(Math.abs(got[i] - value), `${spec.op} ${JSON.stringify(shapes)} element ${i}`).toBeLessThanOrEqual(tolerance * Math.max(floor, Math.abs(value))));
  else expectClose(got, want, tolerance, `${spec.op} ${JSON.stringify(shapes)}`);
}

const activation = fc.constantFrom<Activation>('none', 'relu', 'relu6', 'relu-n1-to-1', 'sigmoid', 'tanh');
const dim = fc.integer({ min: 1, max: 9 });

describe('the SIMD engine runs ops without weights where their tensors lie, as the TypeScript kernels compute them', () => {
  it('max and average pools: any window, stride and padding, windows wholly in the padding included (fast-check)', () => {
    const padding = fc.oneof(
      fc.constant({ kind: 'same' as const }),
      fc.constant({ kind: 'valid' as const }),
      fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3), fc.nat(3)).map((pads) => ({ kind: 'explicit' as const, pads })),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('MaxPool' as const, 'AveragePool' as const),
        fc.integer({ min: 1, max: 2 }),
        dim,
        dim,
        // Channels 16 at a time, then 4, then one by one (wasm/pool.ts): up to 40 draws all three.
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        padding,
        activation,
        fc.nat(),
        (op, n, h, w, c, kh, kw, sh, sw, pad, act, seed) => {
          const valid = pad.kind !== 'valid' || (kh <= h && kw <= w);
          const explicitFits = pad.kind !== 'explicit' || (kh <= h + pad.pads[0] + pad.pads[2] && kw <= w + pad.pads[1] + pad.pads[3]);
          fc.pre(valid && explicitFits);
          // An average sums up to kh*kw inputs of magnitude up to 3 in float32: within kh*kw + 2 roundings of 2^-24 of 3 (the sum, 1 / count, the product, the reference's store).
          const averaged = op === 'AveragePool' ? [(kh * kw + 2) * 2 ** -24, 3] : [];
          compare({ op, kernel: [kh, kw], strides: [sh, sw], padding: pad, activation: act }, [[n, h, w, c]], seed, ...averaged);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('Add and Mul: equal shapes, and a row repeated over the other operand on either side (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Add' as const, 'Mul' as const),
        fc.array(dim, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        activation,
        fc.nat(),
        (op, shape, trailing, swap, act, seed) => {
          const row = shape.slice(Math.max(0, shape.length - 1 - trailing));
          const shapes = swap ? [row, shape] : [shape, row];
          compare({ op, activation: act }, shapes, seed);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('ReLU and ReLU6', () => {
    for (const op of ['Relu', 'Relu6'] as const) compare({ op }, [[2, 5, 3, 7]], 4);
  });

  it('Concat along every axis of inputs of different extents (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(dim, { minLength: 1, maxLength: 4 }), fc.array(dim, { minLength: 1, maxLength: 3 }), fc.nat(), activation, fc.nat(), (shape, extents, axisSeed, act, seed) => {
        const axis = axisSeed % shape.length;
        const shapes = extents.map((e) => shape.map((d, k) => (k === axis ? e : d)));
        compare({ op: 'Concat', axis: axis - (seed % 2 === 0 ? 0 : shape.length), activation: act }, shapes, seed);
      }),
      { numRuns: 100 },
    );
  });

  it('Pad with zeros on any axes of ranks 2 to 4 (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(dim, { minLength: 2, maxLength: 4 }), fc.array(fc.tuple(fc.nat(2), fc.nat(2)), { minLength: 4, maxLength: 4 }), fc.nat(), (shape, pairs, seed) => {
        compare({ op: 'Pad', pads: shape.map((_, k) => pairs[k]) }, [shape], seed, 1e-12);
      }),
      { numRuns: 100 },
    );
  });

  it('bilinear Resize up and down, with and without aligned corners and half-pixel centres (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        dim,
        dim,
        fc.integer({ min: 1, max: 11 }),
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 17 }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        (n, h, w, c, oh, ow, alignCorners, halfPixelCenters, seed) => {
          fc.pre(!(alignCorners && halfPixelCenters));
          // The engine interpolates in float32 (its fractions, four products, their sums): within 16 roundings of 2^-24 of the inputs' magnitude, 3.
          compare({ op: 'Resize', mode: 'bilinear', size: [oh, ow], alignCorners, halfPixelCenters }, [[n, h, w, c]], seed, 16 * 2 ** -24, 3);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the mean of each channel over height and width: GlobalAveragePool, and Mean over axes 1 and 2, kept or not (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 }), dim, dim, fc.integer({ min: 1, max: 21 }), fc.boolean(), fc.boolean(), fc.nat(), (n, h, w, c, negative, keepDims, seed) => {
        for (const spec of [{ op: 'GlobalAveragePool' } as const, { op: 'Mean', axes: negative ? [-3, -2] : [2, 1], keepDims } as const]) {
          const {
            inputs: [x],
            got,
          } = engineRun(spec, [[n, h, w, c]], seed);
          // The engine sums in float32: each mean within (h*w + 1) roundings of 2^-24 of the mean magnitude (the bound of a running sum), the TypeScript kernel's float64 mean being exact by comparison.
          for (let image = 0; image < n; image++) {
            for (let ch = 0; ch < c; ch++) {
              let sum = 0;
              let magnitude = 0;
              for (let p = 0; p < h * w; p++) {
                const v = x[(image * h * w + p) * c + ch];
                sum += v;
                magnitude += Math.abs(v);
              }
              const bound = (h * w + 1) * 2 ** -24 * (magnitude / (h * w));
              expect(Math.abs(got[image * c + ch] - sum / (h * w)), `${spec.op} image ${image} channel ${ch}`).toBeLessThanOrEqual(bound);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('leaves to the view kernels what it does not take: a constant operand, an NCHW pool, a Mean over channels, a nearest resize, an op it has no kernel for', () => {
    const constant = arenaOf({ op: 'Add', activation: 'none' }, [[1, 4, 4, 8], [8]], { constant: 1 });
    expect(arenaOpKernel(constant.node, constant.context)).toBeUndefined();
    const nchw = arenaOf({ op: 'MaxPool', kernel: [2, 2], strides: [2, 2], padding: { kind: 'valid' }, activation: 'none' }, [[1, 3, 4, 4]], { layout: 'NCHW' });
    expect(arenaOpKernel(nchw.node, nchw.context)).toBeUndefined();
    const softmax = arenaOf({ op: 'Softmax', axis: -1, beta: 1 }, [[2, 5]]);
    expect(arenaOpKernel(softmax.node, softmax.context)).toBeUndefined();
    const channelMean = arenaOf({ op: 'Mean', axes: [3], keepDims: false }, [[1, 4, 4, 3]]);
    expect(arenaOpKernel(channelMean.node, channelMean.context)).toBeUndefined();
    const nearest = arenaOf({ op: 'Resize', mode: 'nearest', size: [8, 8], alignCorners: false, halfPixelCenters: false }, [[1, 4, 4, 3]]);
    expect(arenaOpKernel(nearest.node, nearest.context)).toBeUndefined();
  });
});
