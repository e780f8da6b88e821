import type { Activation, Layout } from '../../../graph/ir.ts';
import { dims4 as nodeDims4, type Dims4 } from '../../kernel-geometry.ts';
import { KernelError, type KernelContext } from '../kernel.ts';

/** TFLite's lowest float: a max pool over a window with no valid pixel. */
export const LOWEST_F32 = '-3.4028234663852886e38f';

/** The largest float32: the clamp bounds of "no activation". */
const MAX_F32 = 3.4028234663852886e38;

/** Array parameters (shapes, strides) take this many slots, so that the WGSL does not depend on the rank. */
export const MAX_RANK = 8;

/**
 * A dispatch's parameters (sizes, strides, attributes): u32 words in a small buffer,
 * read at the top of `run` into named `let`s. Keeping them out of the WGSL source keeps the
 * number of distinct shaders small (one per kernel variant, not one per shape), which matters
 * on software drivers, where a new shader costs a compilation of up to seconds.
 */
export class Params {
  private readonly words: number[] = [];
  private readonly lines: string[] = [];

  /** An unsigned value. */
  u(name: string, value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new Error(`parameter ${name} = ${value} is not a u32.`);
    this.lines.push(`let ${name} = prm(${this.words.length}u);`);
    this.words.push(value);
    return this;
  }

  /** A signed value. */
  i(name: string, value: number): this {
    if (!Number.isInteger(value) || Math.abs(value) > 0x7fffffff) throw new Error(`parameter ${name} = ${value} is not an i32.`);
    this.lines.push(`let ${name} = bitcast<i32>(prm(${this.words.length}u));`);
    this.words.push(value >>> 0);
    return this;
  }

  /** A float32 value. */
  f(name: string, value: number): this {
    this.lines.push(`let ${name} = bitcast<f32>(prm(${this.words.length}u));`);
    this.words.push(new Uint32Array(new Float32Array([value]).buffer)[0]);
    return this;
  }

  /** Up to MAX_RANK unsigned values; `name` is the index of the first (read value k with prm(name + k)). */
  array(name: string, values: readonly number[]): this {
    if (values.length > MAX_RANK) throw new Error(`parameter ${name} has ${values.length} values; at most ${MAX_RANK}.`);
    this.lines.push(`let ${name} = ${this.words.length}u;`);
    for (let k = 0; k < MAX_RANK; k++) {
      const v = values[k] ?? 0;
      if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new Error(`parameter ${name}[${k}] = ${v} is not a u32.`);
      this.words.push(v);
    }
    return this;
  }

  /** A fused activation: ACT_LO, ACT_HI (the clamp) and ACT_MODE (0 clamp only, 1 sigmoid, 2 tanh); see `act`. */
  activation(activation: Activation): this {
    const found = ACTIVATION_PARAMS[activation];
    if (found === undefined) throw new Error(`unknown fused activation '${String(activation)}'.`);
    return this.f('ACT_LO', found[0]).f('ACT_HI', found[1]).u('ACT_MODE', found[2]);
  }

  /** The `let`s that read every parameter, for the top of `run`. */
  lets(indent = '  '): string {
    return this.lines.map((line) => indent + line).join('\n');
  }

  values(): Uint32Array {
    return Uint32Array.from(this.words.length > 0 ? this.words : [0]);
  }
}

const ACTIVATION_PARAMS: Readonly<Record<Activation, readonly [number, number, number]>> = {
  none: [-MAX_F32, MAX_F32, 0],
  relu: [0, MAX_F32, 0],
  relu6: [0, 6, 0],
  'relu-n1-to-1': [-1, 1, 0],
  sigmoid: [-MAX_F32, MAX_F32, 1],
  tanh: [-MAX_F32, MAX_F32, 2],
};

/** WGSL applying the activation of Params.activation to an f32 (or vec4<f32>) expression. */
export function act(expr: string, vec4 = false): string {
  return `${vec4 ? 'act4' : 'act1'}(${expr}, ACT_LO, ACT_HI, ACT_MODE)`;
}

/**
 * act1 / act4: the clamp of 'relu', 'relu6', 'relu-n1-to-1' (+-FLT_MAX for the others), then
 * sigmoid or tanh (of an argument clamped to +-10, where it is +-1 in float32: a driver's
 * tanh may give NaN for large arguments). Part of every shader (shader.ts).
 */
export const ACTIVATION_WGSL = `fn act1(v: f32, lo: f32, hi: f32, mode: u32) -> f32 {
  let c = clamp(v, lo, hi);
  if (mode == 1u) { return 1.0f / (1.0f + exp(-c)); }
  if (mode == 2u) { return tanh(clamp(c, -10.0f, 10.0f)); }
  return c;
}
fn act4(v: vec4<f32>, lo: f32, hi: f32, mode: u32) -> vec4<f32> {
  let c = clamp(v, vec4<f32>(lo), vec4<f32>(hi));
  if (mode == 1u) { return vec4<f32>(1.0f) / (vec4<f32>(1.0f) + exp(-c)); }
  if (mode == 2u) { return tanh(clamp(c, vec4<f32>(-10.0f), vec4<f32>(10.0f))); }
  return c;
}`;

/** A 4-D activation's dimensions in the dispatch's layout (see kernel-geometry.ts). */
export function dims4(context: KernelContext, shape: readonly number[]): Dims4 {
  return nodeDims4(context.node, shape, context.layout);
}

/**
 * WGSL (u32) of the element index of (n, y, x, c) in a 4-D tensor of this layout whose sizes
 * are the `let`s `${p}H`, `${p}W`, `${p}C`.
 */
export function index4(layout: Layout, p: string, n: string, y: string, x: string, c: string): string {
  return layout === 'NHWC' ? `(((${n}) * ${p}H + (${y})) * ${p}W + (${x})) * ${p}C + (${c})` : `(((${n}) * ${p}C + (${c})) * ${p}H + (${y})) * ${p}W + (${x})`;
}

export function count(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Row-major element strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let k = shape.length - 2; k >= 0; k--) strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

/**
 * WGSL that splits the u32 `index` into the coordinates of a row-major shape of `rank` axes
 * (the array parameter `shape`) and sums coordinate times stride into each target variable
 * (declared here with `var`; its strides are the array parameter `strides`).
 */
export function offsetsFromIndex(index: string, rank: string, shape: string, targets: readonly { variable: string; strides: string }[], indent = '  '): string {
  return [
    `${indent}var rest_ = ${index};`,
    ...targets.map((t) => `${indent}var ${t.variable} = 0u;`),
    `${indent}for (var d_ = ${rank}; d_ > 0u; d_--) {`,
    `${indent}  let dim_ = prm(${shape} + d_ - 1u);`,
    `${indent}  let q_ = rest_ % dim_;`,
    `${indent}  rest_ = rest_ / dim_;`,
    ...targets.map((t) => `${indent}  ${t.variable} += q_ * prm(${t.strides} + d_ - 1u);`),
    `${indent}}`,
  ].join('\n');
}

export function normalizeAxis(context: KernelContext, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) throw new KernelError(context.node, `axis ${axis} is out of range for rank ${rank}.`);
  return a;
}

/** Checks that a shape fits the array parameters. */
export function checkRank(context: KernelContext, shape: readonly number[]): void {
  if (shape.length > MAX_RANK) throw new KernelError(context.node, `rank ${shape.length} is above the WebGPU backend's ${MAX_RANK}.`);
}

export { padBefore, type Dims4 } from '../../kernel-geometry.ts';
