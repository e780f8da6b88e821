import { afterAll, beforeAll, expect } from 'vitest';
import { setRelaxedSimdEnabled } from '../../../../src/backends/cpu/kernels/wasm/relaxed-simd.ts';
import { setSimdEnabled } from '../../../../src/backends/cpu/kernels/wasm/engine.ts';
import type { Activation, Layout, Node, OpSpec } from '../../../../src/graph/ir.ts';
import { inferOutputShapes } from '../../../../src/graph/shape-inference.ts';
import type { KernelCall } from '../../../../src/backends/cpu/kernel.ts';
import { KERNELS } from '../../../../src/backends/cpu/kernels/index.ts';

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values uniform in [-scale, scale). */
export function randomArray(length: number, random: () => number, scale = 1): Float32Array {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = (random() * 2 - 1) * scale;
  return out;
}

export function count(shape: readonly number[]): number {
  return shape.reduce((p, d) => p * d, 1);
}

export function makeNode(spec: OpSpec, inputs: readonly string[]): Node {
  return { ...spec, name: `test-${spec.op}`, inputs, outputs: ['y'] } as Node;
}

/**
 * Runs the kernel of `spec` on the given inputs (undefined: an absent optional input); the
 * output shape comes from shape inference unless given. The output starts filled with NaN so
 * that a value the kernel forgets to write shows.
 */
export function runKernel(
  spec: OpSpec,
  inputs: readonly (Float32Array | undefined)[],
  shapes: readonly (readonly number[])[],
  layout: Layout = 'NHWC',
  outputShape?: readonly number[],
): { output: Float32Array; shape: readonly number[] } {
  const names = inputs.map((x, k) => (x === undefined ? '' : `x${k}`));
  const node = makeNode(spec, names);
  const shape =
    outputShape ??
    inferOutputShapes(
      node,
      shapes.map((s, k) => (inputs[k] === undefined ? [] : s)),
      layout,
    )[0];
  const output = new Float32Array(count(shape)).fill(NaN);
  const call: KernelCall = { node, layout, inputs, inputShapes: shapes, output, outputShape: shape };
  const kernel = KERNELS[spec.op];
  if (kernel === undefined) throw new Error(`no kernel for ${spec.op}`);
  kernel(call);
  return { output, shape };
}

/** max |got - want| / max |want| (want's largest magnitude, at least 1e-30). */
export function relativeError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let diff = 0;
  let scale = 1e-30;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    if (!(d <= diff)) diff = d; // NaN propagates
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return diff / scale;
}

export function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, tolerance = 1e-5, what = ''): void {
  expect(got.length, `${what} length`).toBe(want.length);
  for (let i = 0; i < got.length; i++) {
    if (Number.isNaN(got[i]) && !Number.isNaN(want[i])) throw new Error(`${what}: element ${i} is NaN (want ${want[i]})`);
  }
  const error = relativeError(got, want);
  if (!(error < tolerance)) throw new Error(`${what}: relative error ${error} (tolerance ${tolerance})`);
}

/** An activation straight from its definition. */
export function activate(value: number, activation: Activation): number {
  switch (activation) {
    case 'none':
      return value;
    case 'relu':
      return Math.max(0, value);
    case 'relu6':
      return Math.min(6, Math.max(0, value));
    case 'relu-n1-to-1':
      return Math.min(1, Math.max(-1, value));
    case 'sigmoid':
      return 1 / (1 + Math.exp(-value));
    case 'tanh':
      return Math.tanh(value);
  }
}

export const ACTIVATIONS: readonly Activation[] = ['none', 'relu', 'relu6', 'relu-n1-to-1', 'sigmoid', 'tanh'];

/** Strides of a row-major shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let k = shape.length - 2; k >= 0; k--) strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

/** Every index tuple of a shape, in row-major order. */
export function* indices(shape: readonly number[]): Generator<number[]> {
  const total = count(shape);
  const index = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < total; i++) {
    yield [...index];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

/** Offset of an NHWC-named position in a 4-D tensor of either layout. */
export function at4(layout: Layout, shape: readonly number[], n: number, y: number, x: number, c: number): number {
  return layout === 'NHWC' ? ((n * shape[1] + y) * shape[2] + x) * shape[3] + c : ((n * shape[1] + c) * shape[2] + y) * shape[3] + x;
}

/** [n, h, w, c] of a 4-D shape in either layout. */
export function nhwc(layout: Layout, shape: readonly number[]): [number, number, number, number] {
  return layout === 'NHWC' ? [shape[0], shape[1], shape[2], shape[3]] : [shape[0], shape[2], shape[3], shape[1]];
}

/** A 4-D shape in the layout from its n, h, w, c. */
export function shape4(layout: Layout, n: number, h: number, w: number, c: number): number[] {
  return layout === 'NHWC' ? [n, h, w, c] : [n, c, h, w];
}

/** The three ways the CPU kernels compute: WebAssembly SIMD with and without relaxed SIMD's fused multiply-add, and the TypeScript loops. */
export const KERNEL_ENGINES = [
  { title: 'WebAssembly relaxed SIMD', simd: true, relaxed: true },
  { title: 'WebAssembly SIMD', simd: true, relaxed: false },
  { title: 'plain TypeScript', simd: false, relaxed: false },
] as const;

/** Computes with `engine` in the enclosing describe block, and puts the default (relaxed SIMD where there is one) back after it. */
export function useKernelEngine(engine: (typeof KERNEL_ENGINES)[number]): void {
  beforeAll(() => {
    setSimdEnabled(engine.simd);
    setRelaxedSimdEnabled(engine.relaxed);
  });
  afterAll(() => {
    setSimdEnabled(true);
    setRelaxedSimdEnabled(true);
  });
}
