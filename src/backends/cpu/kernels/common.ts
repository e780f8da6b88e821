import type { KernelCall } from '../kernel.ts';
import type { Layout } from '../../../graph/ir.ts';
import { dims4 as nodeDims4, type Dims4 } from '../../kernel-geometry.ts';

/** A kernel's input that must be present. */
export function input(call: KernelCall, index: number): Float32Array {
  const data = call.inputs[index];
  if (data === undefined) throw new Error(`node ${call.node.name} (${call.node.op}): input ${index} is missing.`);
  return data;
}

export function count(shape: readonly number[]): number {
  let n = 1;
  for (let k = 0; k < shape.length; k++) n *= shape[k];
  return n;
}

/**
 * A one-input kernel's operands, their lengths checked against their shapes: the input, its
 * shape, the output and its shape.
 */
export function unaryOperands(call: KernelCall): { x: Float32Array; shape: readonly number[]; out: Float32Array; outShape: readonly number[] } {
  const x = input(call, 0);
  const shape = call.inputShapes[0];
  checkLength(call, x, shape, 'input');
  checkLength(call, call.output, call.outputShape, 'output');
  return { x, shape, out: call.output, outShape: call.outputShape };
}

/** Throws unless `data` holds exactly the elements of `shape`. */
export function checkLength(call: KernelCall, data: Float32Array, shape: readonly number[], what: string): void {
  const expected = count(shape);
  if (data.length !== expected) {
    throw new Error(`node ${call.node.name} (${call.node.op}): ${what} has ${data.length} elements, expected ${expected} for [${shape.join(', ')}].`);
  }
}

export function normalizeAxis(call: KernelCall, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) throw new Error(`node ${call.node.name} (${call.node.op}): axis ${axis} is out of range for rank ${rank}.`);
  return a;
}

/** A 4-D activation's dimensions in this call's layout (see kernel-geometry.ts). */
export function dims4(call: KernelCall, shape: readonly number[], layout: Layout): Dims4 {
  return nodeDims4(call.node, shape, layout);
}

/**
 * A window kernel's input (first) and output with their 4-D dimensions, checked: the
 * lengths match the shapes, and batch and channels are the same on both sides.
 */
export function windowInOut(call: KernelCall): { x: Float32Array; out: Float32Array; inD: Dims4; outD: Dims4 } {
  const x = input(call, 0);
  const out = call.output;
  checkLength(call, x, call.inputShapes[0], 'input');
  checkLength(call, out, call.outputShape, 'output');
  const inD = dims4(call, call.inputShapes[0], call.layout);
  const outD = dims4(call, call.outputShape, call.layout);
  if (inD.n !== outD.n || inD.c !== outD.c) {
    throw new Error(`node ${call.node.name} (${call.node.op}): the output's batch or channels differ from the input's.`);
  }
  return { x, out, inD, outD };
}

/**
 * The output range [lo, hi) along one axis where every tap of the window lies inside the
 * input: o*stride - pad + k*dilation in [0, size) for every k < kernel.
 */
export function interiorRange(outSize: number, inSize: number, kernel: number, stride: number, dilation: number, pad: number): [number, number] {
  const lo = Math.min(outSize, Math.max(0, Math.ceil(pad / stride)));
  const last = inSize - 1 - (kernel - 1) * dilation + pad; // largest o*stride allowed
  const hi = last < 0 ? 0 : Math.min(outSize, Math.floor(last / stride) + 1);
  return [lo, Math.max(lo, hi)];
}

/** Every scratch buffer of this process's kernels: what they hold is reported as scratch memory. */
const scratchBuffers: { readonly bytes: number }[] = [];

/** Bytes held by the kernels' scratch buffers (they only grow: the high-water of this process). */
export function scratchBufferBytes(): number {
  let total = 0;
  for (const scratch of scratchBuffers) total += scratch.bytes;
  return total;
}

/** A module-level buffer that grows as needed (never per element): kernels reuse it call after call. */
class Scratch<T extends Float32Array | Float64Array | Int32Array> {
  private buffer: T;
  constructor(private readonly make: (length: number) => T) {
    this.buffer = make(0);
    scratchBuffers.push(this);
  }
  get bytes(): number {
    return this.buffer.byteLength;
  }
  get(size: number): T {
    if (this.buffer.length < size) this.buffer = this.make(Math.max(size, Math.ceil(this.buffer.length * 1.5)));
    return this.buffer;
  }
}

export class ScratchF32 extends Scratch<Float32Array> {
  constructor() {
    super((n) => new Float32Array(n));
  }
}

export class ScratchF64 extends Scratch<Float64Array> {
  constructor() {
    super((n) => new Float64Array(n));
  }
}

export class ScratchI32 extends Scratch<Int32Array> {
  constructor() {
    super((n) => new Int32Array(n));
  }
}

const zeros = new ScratchF32();
/** At least `size` zeros (a shared buffer: never write to it). */
export function zerosF32(size: number): Float32Array {
  return zeros.get(size);
}

/**
 * Per-weights derived data (repacked weights), cached in a WeakMap keyed by the weights'
 * Float32Array. Weights are constants, but a backend might reuse one view object for other
 * data; each entry therefore remembers the view's buffer, offset, length and a sample of its
 * values, and a `key` naming how it was derived (so that two nodes sharing weights with
 * different attributes get their own entries).
 */
export class WeightCache<T> {
  private readonly map = new WeakMap<Float32Array, { key: string; buffer: ArrayBufferLike; offset: number; length: number; sample: Float32Array; value: T }[]>();

  get(weights: Float32Array, key: string, derive: () => T): T {
    let entries = this.map.get(weights);
    if (entries === undefined) {
      entries = [];
      this.map.set(weights, entries);
    }
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[k];
      if (entry.key === key && entry.buffer === weights.buffer && entry.offset === weights.byteOffset && entry.length === weights.length && sameSample(weights, entry.sample)) {
        return entry.value;
      }
    }
    const value = derive();
    const fresh = { key, buffer: weights.buffer, offset: weights.byteOffset, length: weights.length, sample: takeSample(weights), value };
    // Replace a stale entry of the same key; keep at most a few per weights array.
    const stale = entries.findIndex((e) => e.key === key);
    if (stale >= 0) entries[stale] = fresh;
    else entries.push(fresh);
    if (entries.length > 8) entries.shift();
    return value;
  }
}

const SAMPLES = 32;

function takeSample(data: Float32Array): Float32Array {
  const n = Math.min(SAMPLES, data.length);
  const sample = new Float32Array(n);
  for (let k = 0; k < n; k++) sample[k] = data[sampleIndex(k, n, data.length)];
  return sample;
}

function sameSample(data: Float32Array, sample: Float32Array): boolean {
  const n = sample.length;
  for (let k = 0; k < n; k++) {
    const a = data[sampleIndex(k, n, data.length)];
    const b = sample[k];
    if (a !== b && !(a !== a && b !== b)) return false;
  }
  return true;
}

function sampleIndex(k: number, n: number, length: number): number {
  return n <= 1 ? 0 : Math.floor((k * (length - 1)) / (n - 1));
}

export { padBefore, type Dims4 } from '../../kernel-geometry.ts';
