import type { Node } from '../../../graph/ir.ts';
import type { Kernel, KernelCall, PreparedWeights, WeightPreparer } from '../kernel.ts';
import { clampRange, finishActivation } from './activation.ts';
import { convGeometry, type ConvGeometry } from '../../kernel-geometry.ts';
import { checkLength, input, interiorRange, ScratchF32, ScratchF64, WeightCache, zerosF32 } from './common.ts';
import { chunkRows, gemm, gemmScalar, packB, packedLength, PANEL, stageWeights, type PackedB } from './gemm.ts';
import { simdEngine, type Arena, type SimdEngine } from './wasm/engine.ts';

type ConvNode = Extract<Node, { op: 'Conv' }>;

/**
 * Conv: groups = 1, depthwise (groups = input channels, any multiplier) and any other
 * group count; weights OHWI, 1HWO or OIHW; bias optional (input 2); SAME / VALID / explicit
 * padding; strides; dilations; fused activation. Paths:
 *
 * - Depthwise 3x3 with multiplier 1 (NHWC): the SIMD kernel (4 channels at a time, the 9
 *   weights in registers) over the input framed in zeros; without SIMD, channel by channel
 *   along each output row with the window's columns kept in locals, the border pixels
 *   separately. Other depthwise convolutions: a direct loop per pixel.
 * - NHWC 1x1, stride 1, no padding, one group: the input is already the GEMM's A matrix.
 * - NHWC otherwise: im2col of a tile of output pixels (into the SIMD engine's memory, or a
 *   reusable buffer), then GEMM with weights packed once per weights array (cached).
 * - NCHW: depthwise 3x3 (multiplier 1) by the same SIMD kernel, transposing into and out of
 *   its memory; other depthwise convolutions by a direct loop per plane; otherwise the same
 *   im2col + GEMM over a tile, then scattered into the planes.
 */
export const conv: Kernel = (call) => {
  const node = call.node as ConvNode;
  const x = input(call, 0);
  const bias = call.inputs[2];
  const g = geometry(call, node);
  checkLength(call, x, call.inputShapes[0], 'input');
  checkLength(call, call.output, call.outputShape, 'output');
  const weights = (call.prepared as ConvWeights | undefined) ?? cachedConvWeights(call, node, g);
  if (bias !== undefined && bias.length !== g.o) throw new Error(`node ${node.name} (Conv): bias has ${bias.length} elements, expected ${g.o}.`);
  const biasData = bias ?? zerosF32(g.o);
  // Float64 values for the loops (a tagged bound would box every stored result).
  const range = clampRange(node.activation);
  const lo = Math.fround(range.lo);
  const hi = Math.fround(range.hi);
  const out = call.output;
  const depthwise = g.groups === g.c && g.cg === 1;

  if (call.layout === 'NHWC') {
    if (depthwise) {
      depthwiseNhwc(x, g, weights.depthwise!, biasData, out, lo, hi);
    } else if (g.groups === 1 && g.kh === 1 && g.kw === 1 && g.sh === 1 && g.sw === 1 && g.pt === 0 && g.pl === 0 && g.oh === g.h && g.ow === g.w) {
      gemm(x, 0, g.c, g.n * g.h * g.w, weights.packs![0], biasData, 0, out, 0, g.o, lo, hi);
    } else {
      im2colConvNhwc(x, g, weights.packs!, biasData, out, lo, hi);
    }
  } else if (depthwise) {
    const engine = g.kh === 3 && g.kw === 3 && g.o === g.c ? simdEngine() : undefined;
    if (engine !== undefined) depthwise3x3Simd(engine, x, g, depthwiseFloat32(weights.depthwise!), biasData, out, lo, hi, 'NCHW');
    else depthwiseNchw(x, g, depthwiseFloat64(weights.depthwise!), biasData, out, lo, hi);
  } else {
    im2colConvNchw(x, g, weights.packs!, biasData, out, lo, hi);
  }
  finishActivation(out, node.activation);
};

function geometry(call: KernelCall, node: ConvNode): ConvGeometry {
  return convGeometry(node, call.inputShapes[0], call.outputShape, call.layout);
}

// ----- weights, derived once: at prepare (prepareConv), or cached per weights array -----

/**
 * Depthwise weights as [kh*kw][O] (TFLite's 1HWO order), in the one precision the path
 * reads: float32 for the SIMD kernel, float64 for the loops. The other is made only if a
 * later call asks for it (the SIMD engine turned off in between). Plain data, as every
 * prepared form: it crosses to worker threads by structured clone (cpu-parallel).
 */
interface DepthwiseWeights {
  f32?: Float32Array;
  f64?: Float64Array;
}

function depthwiseFloat32(weights: DepthwiseWeights): Float32Array {
  return (weights.f32 ??= Float32Array.from(weights.f64!));
}

function depthwiseFloat64(weights: DepthwiseWeights): Float64Array {
  return (weights.f64 ??= Float64Array.from(weights.f32!));
}

/** A Conv's weights in the form its path computes with: GEMM panels per group, or depthwise taps. */
interface ConvWeights extends PreparedWeights {
  readonly packs?: PackedB[];
  readonly depthwise?: DepthwiseWeights;
}

/** Conv's WeightPreparer: the weights (input 1) repacked for the path this node takes. */
export const prepareConv: WeightPreparer = (call) => {
  const node = call.node as ConvNode;
  return deriveConvWeights(rawConvWeights(call, node, geometry(call, node)), node, geometry(call, node));
};

const convCache = new WeightCache<ConvWeights>();

function cachedConvWeights(call: KernelCall, node: ConvNode, g: ConvGeometry): ConvWeights {
  const weights = rawConvWeights(call, node, g);
  return convCache.get(weights, `${node.weightLayout}:${g.o}:${g.kh}:${g.kw}:${g.cg}:${g.groups}`, () => deriveConvWeights(weights, node, g));
}

function rawConvWeights(call: KernelCall, node: ConvNode, g: ConvGeometry): Float32Array {
  const weights = input(call, 1);
  if (weights.length !== g.o * g.kh * g.kw * g.cg) {
    throw new Error(`node ${node.name} (Conv): weights have ${weights.length} elements, expected ${g.o}x${g.kh}x${g.kw}x${g.cg}.`);
  }
  return weights;
}

function deriveConvWeights(weights: Float32Array, node: ConvNode, g: ConvGeometry): ConvWeights {
  if (g.groups === g.c && g.cg === 1) {
    const taps = g.kh * g.kw;
    const simd = g.kh === 3 && g.kw === 3 && g.o === g.c && simdEngine() !== undefined;
    const values = simd ? new Float32Array(taps * g.o) : new Float64Array(taps * g.o);
    for (let o = 0; o < g.o; o++) {
      for (let t = 0; t < taps; t++) {
        // With one input channel per group, OHWI and OIHW both store W[o][t].
        values[t * g.o + o] = node.weightLayout === '1HWO' ? weights[t * g.o + o] : weights[o * taps + t];
      }
    }
    const depthwise: DepthwiseWeights = values instanceof Float32Array ? { f32: values } : { f64: values };
    return { replaces: [1], bytes: values.byteLength, depthwise };
  }
  // Weights as one packed GEMM operand per group: B[(ky*kw + kx)*cg + ci, j] = W(g*og + j, ky, kx, ci).
  const ohwi = toOhwi(weights, node, g);
  const k = g.kh * g.kw * g.cg;
  const packs: PackedB[] = [];
  for (let group = 0; group < g.groups; group++) packs.push(packB(ohwi, group * g.og * k, k, g.og, 1, k));
  return { replaces: [1], bytes: packs.reduce((sum, p) => sum + p.data.byteLength, 0), packs };
}

/** Any weight layout as OHWI [O][kh][kw][cg]. */
function toOhwi(weights: Float32Array, node: ConvNode, g: ConvGeometry): Float32Array {
  const { o: outChannels, kh, kw, cg } = g;
  switch (node.weightLayout) {
    case 'OHWI':
      return weights;
    case 'OIHW': {
      const out = new Float32Array(weights.length);
      for (let o = 0; o < outChannels; o++) {
        for (let ci = 0; ci < cg; ci++) {
          for (let ky = 0; ky < kh; ky++) {
            for (let kx = 0; kx < kw; kx++) out[((o * kh + ky) * kw + kx) * cg + ci] = weights[((o * cg + ci) * kh + ky) * kw + kx];
          }
        }
      }
      return out;
    }
    case '1HWO': {
      if (cg !== 1) throw new Error(`node ${node.name} (Conv): 1HWO weights need one input channel per group, not ${cg}.`);
      const taps = kh * kw;
      const out = new Float32Array(weights.length);
      for (let o = 0; o < outChannels; o++) for (let t = 0; t < taps; t++) out[o * taps + t] = weights[t * outChannels + o];
      return out;
    }
  }
}

// ----- im2col + GEMM -----

const columns = new ScratchF32();
const tileOutput = new ScratchF32();

/** Output pixels per im2col tile: a multiple of 4, about 32 KiB of columns. */
function tilePixels(k: number, pixels: number): number {
  const rows = Math.max(16, Math.min(512, Math.floor(8192 / Math.max(1, k)) & ~3));
  return Math.min(rows, pixels);
}

function im2colConvNhwc(x: Float32Array, g: ConvGeometry, packs: PackedB[], bias: Float32Array, out: Float32Array, lo: number, hi: number): void {
  const k = g.kh * g.kw * g.cg;
  const pixels = g.n * g.oh * g.ow;
  const engine = simdEngine();
  if (engine !== undefined && k > 0) {
    const tile = chunkRows(k, g.o, pixels);
    const staged = stageGroups(engine, packs, bias, g.og);
    const arena = staged.arena;
    const colAt = arena.alloc(tile * k);
    const cAt = arena.alloc(tile * g.o);
    const heap = staged.commit();
    for (let p0 = 0; p0 < pixels; p0 += tile) {
      const rows = Math.min(tile, pixels - p0);
      for (let group = 0; group < g.groups; group++) {
        fillColumnsNhwc(x, g, group * g.cg, p0, rows, heap, colAt);
        engine.gemm(colAt, k, rows, staged.weights[group], k, g.og, staged.biases[group], cAt + group * g.og, g.o, lo, hi);
      }
      out.set(heap.subarray(cAt, cAt + rows * g.o), p0 * g.o);
    }
    return;
  }
  const tile = tilePixels(k, pixels);
  const col = columns.get(tile * k);
  for (let p0 = 0; p0 < pixels; p0 += tile) {
    const rows = Math.min(tile, pixels - p0);
    for (let group = 0; group < g.groups; group++) {
      fillColumnsNhwc(x, g, group * g.cg, p0, rows, col, 0);
      gemmScalar(col, 0, k, rows, packs[group], bias, group * g.og, out, p0 * g.o + group * g.og, g.o, lo, hi);
    }
  }
}

interface StagedGroups {
  /** Open for the caller's own operands until `commit`. */
  readonly arena: Arena;
  /** Offsets of each group's packed weights and padded bias. */
  readonly weights: readonly number[];
  readonly biases: readonly number[];
  /** Grows the memory, copies the weights and biases in, and returns the heap. */
  commit(): Float32Array;
}

/** Lays out every group's packed weights and bias in engine memory. */
function stageGroups(engine: SimdEngine, packs: PackedB[], bias: Float32Array, og: number): StagedGroups {
  const arena = engine.arena();
  const weights = packs.map((p) => arena.alloc(packedLength(p.k, p.n)));
  const biases = packs.map(() => arena.alloc(Math.ceil(og / PANEL) * PANEL));
  return {
    arena,
    weights,
    biases,
    commit() {
      const heap = arena.commit();
      packs.forEach((p, group) => stageWeights(heap, p, weights[group], bias, group * og, biases[group]));
      return heap;
    },
  };
}

/**
 * Rows of im2col for output pixels [p0, p0+rows) of one group: (ky, kx, ci) order, zeros
 * outside. Exported for the budgeted executor, which fills its band buffer the same way.
 */
export function fillColumnsNhwc(x: Float32Array, g: ConvGeometry, cOffset: number, p0: number, rows: number, col: Float32Array, colOffset: number): void {
  const { h, w, c, ow, oh, kh, kw, sh, sw, dh, dw, pt, pl, cg } = g;
  const plane = oh * ow;
  let n = Math.floor(p0 / plane);
  let oy = Math.floor((p0 - n * plane) / ow);
  let ox = p0 - n * plane - oy * ow;
  let r = colOffset;
  for (let row = 0; row < rows; row++) {
    const iy0 = oy * sh - pt;
    const ix0 = ox * sw - pl;
    for (let ky = 0; ky < kh; ky++) {
      const iy = iy0 + ky * dh;
      if (iy < 0 || iy >= h) {
        for (let e = r + kw * cg; r < e; r++) col[r] = 0;
        continue;
      }
      const rowBase = (n * h + iy) * w * c + cOffset;
      if (dw === 1 && ix0 >= 0 && ix0 + kw <= w && cg === c) {
        // The window's row is one contiguous run of kw*c values.
        for (let s = rowBase + ix0 * c, e = r + kw * cg; r < e; r++, s++) col[r] = x[s];
        continue;
      }
      for (let kx = 0; kx < kw; kx++) {
        const ix = ix0 + kx * dw;
        if (ix < 0 || ix >= w) {
          for (let e = r + cg; r < e; r++) col[r] = 0;
        } else {
          for (let s = rowBase + ix * c, e = r + cg; r < e; r++, s++) col[r] = x[s];
        }
      }
    }
    if (++ox === ow) {
      ox = 0;
      if (++oy === oh) {
        oy = 0;
        n++;
      }
    }
  }
}

function im2colConvNchw(x: Float32Array, g: ConvGeometry, packs: PackedB[], bias: Float32Array, out: Float32Array, lo: number, hi: number): void {
  const { o, kh, kw, cg, og } = g;
  const k = kh * kw * cg;
  const plane = g.oh * g.ow;
  const pixels = g.n * plane;
  const engine = simdEngine();
  let tile: number;
  let col: Float32Array;
  let colAt: number;
  let tmp: Float32Array;
  let tmpAt: number;
  let staged: StagedGroups | undefined;
  if (engine !== undefined && k > 0) {
    tile = chunkRows(k, og, pixels);
    staged = stageGroups(engine, packs, bias, og);
    colAt = staged.arena.alloc(tile * k);
    tmpAt = staged.arena.alloc(tile * og);
    col = tmp = staged.commit();
  } else {
    tile = tilePixels(k, pixels);
    col = columns.get(tile * k);
    tmp = tileOutput.get(tile * og);
    colAt = tmpAt = 0;
  }
  for (let p0 = 0; p0 < pixels; p0 += tile) {
    const rows = Math.min(tile, pixels - p0);
    for (let group = 0; group < g.groups; group++) {
      fillColumnsNchw(x, g, group * cg, p0, rows, col, colAt);
      if (engine !== undefined && staged !== undefined) engine.gemm(colAt, k, rows, staged.weights[group], k, og, staged.biases[group], tmpAt, og, lo, hi);
      else gemmScalar(col, 0, k, rows, packs[group], bias, group * og, tmp, 0, og, lo, hi);
      for (let row = 0; row < rows; row++) {
        const p = p0 + row;
        const n = Math.floor(p / plane);
        const at = p - n * plane;
        for (let j = 0, s = tmpAt + row * og; j < og; j++) out[(n * o + group * og + j) * plane + at] = tmp[s + j];
      }
    }
  }
}

/** Rows of im2col from an NCHW input, in the same (ky, kx, ci) order. */
function fillColumnsNchw(x: Float32Array, g: ConvGeometry, cOffset: number, p0: number, rows: number, col: Float32Array, colOffset: number): void {
  const { h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg } = g;
  const plane = oh * ow;
  let r = colOffset;
  for (let row = 0; row < rows; row++) {
    const p = p0 + row;
    const n = Math.floor(p / plane);
    const oy = Math.floor((p - n * plane) / ow);
    const ox = p - n * plane - oy * ow;
    for (let ky = 0; ky < kh; ky++) {
      const iy = oy * sh - pt + ky * dh;
      for (let kx = 0; kx < kw; kx++) {
        const ix = ox * sw - pl + kx * dw;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
          for (let e = r + cg; r < e; r++) col[r] = 0;
        } else {
          for (let ci = 0, s = ((n * c + cOffset) * h + iy) * w + ix; ci < cg; ci++, r++, s += h * w) col[r] = x[s];
        }
      }
    }
  }
}

// ----- depthwise -----

const accumulators = new ScratchF64();

function depthwiseNhwc(x: Float32Array, g: ConvGeometry, wts: DepthwiseWeights, bias: Float32Array, out: Float32Array, lo: number, hi: number): void {
  const { n: batch, h, w, c, oh, ow, o, kh, kw, sh, sw, dh, dw, pt, pl } = g;
  const acc = accumulators.get(o);
  const [oyLo, oyHi] = interiorRange(oh, h, kh, sh, dh, pt);
  const [oxLo, oxHi] = interiorRange(ow, w, kw, sw, dw, pl);
  const fast = kh === 3 && kw === 3 && o === c;
  const engine = fast ? simdEngine() : undefined;
  if (engine !== undefined) {
    depthwise3x3Simd(engine, x, g, depthwiseFloat32(wts), bias, out, lo, hi, 'NHWC');
    return;
  }
  const taps = depthwiseFloat64(wts);
  const operands: DepthwiseOperandsAt = { x, xAt: 0, taps, tapsAt: 0, bias, biasAt: 0, out, outAt: 0 };
  for (let n = 0; n < batch; n++) {
    for (let oy = 0; oy < oh; oy++) {
      if (fast && oy >= oyLo && oy < oyHi && oxHi > oxLo) {
        for (let ox = 0; ox < oxLo; ox++) depthwisePixelNhwc(operands, g, lo, hi, acc, n, oy, ox);
        const iy0 = oy * sh - pt;
        const r0 = (n * h + iy0) * w * c;
        depthwise3x3Row(x, c, r0, r0 + dh * w * c, r0 + 2 * dh * w * c, oxLo * sw - pl, sw, dw, oxHi - oxLo, ((n * oh + oy) * ow + oxLo) * c, taps, bias, out, lo, hi);
        for (let ox = oxHi; ox < ow; ox++) depthwisePixelNhwc(operands, g, lo, hi, acc, n, oy, ox);
      } else {
        for (let ox = 0; ox < ow; ox++) depthwisePixelNhwc(operands, g, lo, hi, acc, n, oy, ox);
      }
    }
  }
}

/**
 * 3x3 depthwise (multiplier 1) by the SIMD kernel: each image goes into engine memory, NHWC,
 * inside a frame of zeros as wide as the padding, so that every output pixel's window lies
 * inside it and one kernel call covers the whole output (a zero tap adds nothing). An NCHW
 * image is transposed on the way in and its result on the way out.
 */
function depthwise3x3Simd(engine: SimdEngine, x: Float32Array, g: ConvGeometry, weights: Float32Array, bias: Float32Array, out: Float32Array, lo: number, hi: number, layout: 'NHWC' | 'NCHW'): void {
  const { n: batch, h, w, c, oh, ow, sh, sw, dh, dw, pt, pl } = g;
  const top = pt;
  const left = pl;
  const bottom = Math.max(0, (oh - 1) * sh + 2 * dh - pt - (h - 1));
  const right = Math.max(0, (ow - 1) * sw + 2 * dw - pl - (w - 1));
  const ph = top + h + bottom;
  const pw = left + w + right;
  const arena = engine.arena();
  const inAt = arena.alloc(ph * pw * c);
  const outAt = arena.alloc(oh * ow * c);
  const wAt = arena.alloc(9 * c);
  const biasAt = arena.alloc(c);
  const heap = arena.commit();
  heap.set(weights, wAt);
  for (let ch = 0; ch < c; ch++) heap[biasAt + ch] = bias[ch];
  const rowLength = w * c;
  const paddedRow = pw * c;
  const outPixels = oh * ow;
  for (let n = 0; n < batch; n++) {
    // The frame: rows above and below, then the columns left and right of each row.
    heap.fill(0, inAt, inAt + top * paddedRow);
    heap.fill(0, inAt + (top + h) * paddedRow, inAt + ph * paddedRow);
    const image = n * h * rowLength;
    for (let y = 0; y < h; y++) {
      const at = inAt + (top + y) * paddedRow;
      heap.fill(0, at, at + left * c);
      heap.fill(0, at + (left + w) * c, at + paddedRow);
    }
    if (layout === 'NCHW') {
      for (let ch = 0; ch < c; ch++) {
        for (let y = 0, s = image + ch * h * w; y < h; y++) {
          for (let xx = 0, d = inAt + ((top + y) * pw + left) * c + ch; xx < w; xx++, s++, d += c) heap[d] = x[s];
        }
      }
    } else if (left === 0 && right === 0) {
      heap.set(x.subarray(image, image + h * rowLength), inAt + top * paddedRow);
    } else {
      for (let y = 0; y < h; y++) heap.set(x.subarray(image + y * rowLength, image + (y + 1) * rowLength), inAt + ((top + y) * pw + left) * c);
    }
    engine.depthwise3x3(inAt, outAt, oh, ow, sh * paddedRow, sw * c, dh * paddedRow, dw * c, ow * c, c, c, wAt, biasAt, lo, hi);
    if (layout === 'NCHW') {
      for (let ch = 0; ch < c; ch++) {
        for (let p = 0, d = (n * c + ch) * outPixels, s = outAt + ch; p < outPixels; p++, d++, s += c) out[d] = heap[s];
      }
    } else {
      out.set(heap.subarray(outAt, outAt + outPixels * c), n * outPixels * c);
    }
  }
}

/** Where a depthwise pixel's operands lie: each an array and the offset of its first value. */
export interface DepthwiseOperandsAt {
  readonly x: Float32Array;
  readonly xAt: number;
  /** The taps [kh*kw][o], then (anywhere) the bias [o]. */
  readonly taps: ArrayLike<number>;
  readonly tapsAt: number;
  readonly bias: ArrayLike<number>;
  readonly biasAt: number;
  readonly out: Float32Array;
  readonly outAt: number;
}

/**
 * All output channels of one pixel, any kernel, multiplier and dilation, accumulated in
 * float64 and clamped to [lo, hi]: taps outside the input are skipped (their range
 * computed, not tested per tap). The CPU kernel runs it on its own arrays, the in-place
 * executor (arena-kernels.ts) on the one memory, so both compute the same sums.
 */
export function depthwisePixelNhwc(v: DepthwiseOperandsAt, g: ConvGeometry, lo: number, hi: number, acc: Float64Array, n: number, oy: number, ox: number): void {
  lo = Math.fround(lo);
  hi = Math.fround(hi);
  const { x, xAt, taps, tapsAt, bias, biasAt } = v;
  const { h, w, c, ow, oh, o, kw, sh, sw, dh, dw, pt, pl } = g;
  const mult = o / c;
  for (let j = 0; j < o; j++) acc[j] = bias[biasAt + j];
  const iy0 = oy * sh - pt;
  const ix0 = ox * sw - pl;
  const kyLo = iy0 >= 0 ? 0 : Math.ceil(-iy0 / dh);
  const kyHi = Math.min(g.kh, Math.floor((h - 1 - iy0) / dh) + 1);
  const kxLo = ix0 >= 0 ? 0 : Math.ceil(-ix0 / dw);
  const kxHi = Math.min(kw, Math.floor((w - 1 - ix0) / dw) + 1);
  for (let ky = kyLo; ky < kyHi; ky++) {
    const rowBase = (n * h + iy0 + ky * dh) * w;
    for (let kx = kxLo; kx < kxHi; kx++) {
      const xi = xAt + (rowBase + ix0 + kx * dw) * c;
      const wi = tapsAt + (ky * kw + kx) * o;
      if (mult === 1) {
        for (let ch = 0; ch < c; ch++) acc[ch] += x[xi + ch] * taps[wi + ch];
      } else {
        for (let ch = 0, j = 0; ch < c; ch++) {
          const value = x[xi + ch];
          for (let m = 0; m < mult; m++, j++) acc[j] += value * taps[wi + j];
        }
      }
    }
  }
  const { out } = v;
  const at = v.outAt + ((n * oh + oy) * ow + ox) * o;
  for (let j = 0; j < o; j++) {
    const value = acc[j];
    out[at + j] = value < lo ? lo : value > hi ? hi : value;
  }
}

/**
 * A run of `count` interior output pixels of a 3x3 depthwise convolution with multiplier 1,
 * channel by channel: the channel's 9 weights stay in locals and, for stride 1 or 2 without
 * dilation, the window's columns slide along the row (3 or 6 loads per output, not 9).
 * r0..r2: offsets of the three input rows (at x = 0, channel 0); ix: the input column of the
 * first window; at: the offset of the first output pixel (channel 0).
 */
function depthwise3x3Row(
  x: Float32Array,
  c: number,
  r0: number,
  r1: number,
  r2: number,
  ix: number,
  sw: number,
  dw: number,
  count: number,
  at: number,
  wts: Float64Array,
  bias: Float32Array,
  out: Float32Array,
  lo: number,
  hi: number,
): void {
  lo = Math.fround(lo);
  hi = Math.fround(hi);
  const c2 = 2 * c;
  const tapStride = dw * c;
  const step = sw * c;
  for (let ch = 0; ch < c; ch++) {
    const w00 = wts[ch],
      w01 = wts[c + ch],
      w02 = wts[2 * c + ch];
    const w10 = wts[3 * c + ch],
      w11 = wts[4 * c + ch],
      w12 = wts[5 * c + ch];
    const w20 = wts[6 * c + ch],
      w21 = wts[7 * c + ch],
      w22 = wts[8 * c + ch];
    const b = bias[ch];
    let i = ix * c + ch;
    let o = at + ch;
    if (sw === 1 && dw === 1) {
      let a0 = x[r0 + i],
        b0 = x[r1 + i],
        d0 = x[r2 + i];
      i += c;
      let a1 = x[r0 + i],
        b1 = x[r1 + i],
        d1 = x[r2 + i];
      i += c;
      for (let t = 0; t < count; t++, i += c, o += c) {
        const a2 = x[r0 + i],
          b2 = x[r1 + i],
          d2 = x[r2 + i];
        const v = b + w00 * a0 + w01 * a1 + w02 * a2 + w10 * b0 + w11 * b1 + w12 * b2 + w20 * d0 + w21 * d1 + w22 * d2;
        out[o] = v < lo ? lo : v > hi ? hi : v;
        a0 = a1;
        a1 = a2;
        b0 = b1;
        b1 = b2;
        d0 = d1;
        d1 = d2;
      }
    } else if (sw === 2 && dw === 1) {
      let a0 = x[r0 + i],
        b0 = x[r1 + i],
        d0 = x[r2 + i];
      for (let t = 0; t < count; t++, i += c2, o += c) {
        const j1 = i + c;
        const j2 = i + c2;
        const a1 = x[r0 + j1],
          b1 = x[r1 + j1],
          d1 = x[r2 + j1];
        const a2 = x[r0 + j2],
          b2 = x[r1 + j2],
          d2 = x[r2 + j2];
        const v = b + w00 * a0 + w01 * a1 + w02 * a2 + w10 * b0 + w11 * b1 + w12 * b2 + w20 * d0 + w21 * d1 + w22 * d2;
        out[o] = v < lo ? lo : v > hi ? hi : v;
        a0 = a2;
        b0 = b2;
        d0 = d2;
      }
    } else {
      for (let t = 0; t < count; t++, i += step, o += c) {
        const j1 = i + tapStride;
        const j2 = j1 + tapStride;
        const v = b + w00 * x[r0 + i] + w01 * x[r0 + j1] + w02 * x[r0 + j2] + w10 * x[r1 + i] + w11 * x[r1 + j1] + w12 * x[r1 + j2] + w20 * x[r2 + i] + w21 * x[r2 + j1] + w22 * x[r2 + j2];
        out[o] = v < lo ? lo : v > hi ? hi : v;
      }
    }
  }
}

function depthwiseNchw(x: Float32Array, g: ConvGeometry, wts: Float64Array, bias: Float32Array, out: Float32Array, lo: number, hi: number): void {
  lo = Math.fround(lo);
  hi = Math.fround(hi);
  const { n: batch, h, w, c, oh, ow, o, kh, kw, sh, sw, dh, dw, pt, pl } = g;
  const mult = o / c;
  for (let n = 0; n < batch; n++) {
    for (let j = 0; j < o; j++) {
      const inPlane = (n * c + Math.floor(j / mult)) * h * w;
      const outPlane = (n * o + j) * oh * ow;
      const b = bias[j];
      for (let oy = 0; oy < oh; oy++) {
        const iy0 = oy * sh - pt;
        const kyLo = iy0 >= 0 ? 0 : Math.ceil(-iy0 / dh);
        const kyHi = Math.min(kh, Math.floor((h - 1 - iy0) / dh) + 1);
        for (let ox = 0; ox < ow; ox++) {
          const ix0 = ox * sw - pl;
          const kxLo = ix0 >= 0 ? 0 : Math.ceil(-ix0 / dw);
          const kxHi = Math.min(kw, Math.floor((w - 1 - ix0) / dw) + 1);
          let v = b;
          for (let ky = kyLo; ky < kyHi; ky++) {
            const row = inPlane + (iy0 + ky * dh) * w + ix0;
            for (let kx = kxLo; kx < kxHi; kx++) v += x[row + kx * dw] * wts[(ky * kw + kx) * o + j];
          }
          out[outPlane + oy * ow + ox] = v < lo ? lo : v > hi ? hi : v;
        }
      }
    }
  }
}
