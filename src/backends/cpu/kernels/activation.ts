import type { Activation } from '../../../graph/ir.ts';

/**
 * Fused activations. The clamping ones ('none', 'relu', 'relu6', 'relu-n1-to-1') are a
 * [lo, hi] range that the convolution and matrix kernels apply as they store each result;
 * 'sigmoid' and 'tanh' are applied in a pass over the written output afterwards
 * (`finishActivation`). Memory-bound ops (Add, Mul, pools, Concat) write their results and
 * then make one `applyActivation` pass.
 */
export interface ClampRange {
  readonly lo: number;
  readonly hi: number;
}

const RANGES: Readonly<Record<Activation, ClampRange>> = {
  none: { lo: -Infinity, hi: Infinity },
  relu: { lo: 0, hi: Infinity },
  relu6: { lo: 0, hi: 6 },
  'relu-n1-to-1': { lo: -1, hi: 1 },
  sigmoid: { lo: -Infinity, hi: Infinity },
  tanh: { lo: -Infinity, hi: Infinity },
};

/** The clamp a kernel applies while storing (no clamp for 'none', 'sigmoid', 'tanh'). */
export function clampRange(activation: Activation): ClampRange {
  const range = RANGES[activation];
  if (range === undefined) throw new Error(`unknown fused activation '${String(activation)}'.`);
  return range;
}

/** Applies sigmoid or tanh to data[start, end) in place; clamping activations are already done. */
export function finishActivation(data: Float32Array, activation: Activation, start = 0, end = data.length): void {
  if (activation === 'sigmoid') sigmoidInPlace(data, start, end);
  else if (activation === 'tanh') tanhInPlace(data, start, end);
}

/** Applies any activation to data[start, end) in place (for ops that do not fuse the clamp). */
export function applyActivation(data: Float32Array, activation: Activation, start = 0, end = data.length): void {
  switch (activation) {
    case 'none':
      return;
    case 'sigmoid':
      sigmoidInPlace(data, start, end);
      return;
    case 'tanh':
      tanhInPlace(data, start, end);
      return;
    default: {
      const { lo, hi } = clampRange(activation);
      clampInto(data, data, start, end, lo, hi);
    }
  }
}

/**
 * out[i] = clamp(src[i], lo, hi) for i in [start, end); src and out may be the same array.
 *
 * Written for V8: the bounds become float64 locals (a bound that stays a tagged number
 * makes every result a boxed one), and a lower bound of 0 is applied without a branch, on
 * the bits (a negative float, -0 and -Infinity included, has its sign bit set), since the
 * signs of activations are as good as random and a branch on them mispredicts.
 */
export function clampInto(src: Float32Array, out: Float32Array, start: number, end: number, lo: number, hi: number): void {
  const low = Math.fround(lo);
  const high = Math.fround(hi);
  if (low === 0) {
    const bits = new Int32Array(src.buffer, src.byteOffset, src.length);
    const outBits = src === out ? bits : new Int32Array(out.buffer, out.byteOffset, out.length);
    for (let i = start; i < end; i++) {
      const b = bits[i];
      outBits[i] = b & ~(b >> 31);
    }
    if (high !== Infinity) {
      for (let i = start; i < end; i++) if (out[i] > high) out[i] = high;
    }
    return;
  }
  if (low === -Infinity && high === Infinity) {
    if (src !== out) for (let i = start; i < end; i++) out[i] = src[i];
    return;
  }
  for (let i = start; i < end; i++) {
    const v = src[i];
    out[i] = v < low ? low : v > high ? high : v;
  }
}

export function sigmoidInto(src: Float32Array, out: Float32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) out[i] = 1 / (1 + Math.exp(-src[i]));
}

export function tanhInto(src: Float32Array, out: Float32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) out[i] = Math.tanh(src[i]);
}

function sigmoidInPlace(data: Float32Array, start: number, end: number): void {
  sigmoidInto(data, data, start, end);
}

function tanhInPlace(data: Float32Array, start: number, end: number): void {
  tanhInto(data, data, start, end);
}
