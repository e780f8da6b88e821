import type { OpType } from '../../../graph/ir.ts';
import type { Kernel, KernelTable, WeightPreparer } from '../kernel.ts';
import { add, mul } from './binary.ts';
import { causalMask } from './causal-mask.ts';
import { concat } from './concat.ts';
import { scratchBufferBytes } from './common.ts';
import { conv, prepareConv } from './conv.ts';
import { gather } from './gather.ts';
import { gelu } from './gelu.ts';
import { layerNorm } from './layer-norm.ts';
import { fullyConnected, gemmOp, matMul, prepareFullyConnected } from './matmul.ts';
import { mean } from './mean.ts';
import { pad } from './pad.ts';
import { averagePool, globalAveragePool, maxPool } from './pool.ts';
import { resize } from './resize.ts';
import { slice } from './slice.ts';
import { softmax } from './softmax.ts';
import { transpose } from './transpose.ts';
import { copy, relu, relu6, sigmoid, tanh } from './unary.ts';

import { simdMemoryBytes } from './wasm/engine.ts';

export { setSimdEnabled, simdEngine } from './wasm/engine.ts';

/**
 * The fp32 CPU kernels, one per op of the IR. Every kernel reads its inputs, writes only its
 * output view (never an alias of an input: Reshape, Flatten, Squeeze and Dequantize copy),
 * and allocates nothing per element; heavy kernels reuse module-level scratch buffers and
 * cache repacked weights per weights array (keyed by the array: pass the same Float32Array
 * for a constant on every call). Convolutions and matrix products run on a WebAssembly SIMD
 * engine where there is one (wasm/engine.ts; `setSimdEnabled(false)` for the plain
 * TypeScript loops).
 */
export const KERNELS: Readonly<Record<OpType, Kernel>> & KernelTable = {
  Conv: conv,
  FullyConnected: fullyConnected,
  MatMul: matMul,
  Gemm: gemmOp,
  Add: add,
  Mul: mul,
  Concat: concat,
  AveragePool: averagePool,
  MaxPool: maxPool,
  GlobalAveragePool: globalAveragePool,
  Mean: mean,
  Pad: pad,
  Reshape: copy,
  Flatten: copy,
  Squeeze: copy,
  Softmax: softmax,
  Resize: resize,
  Relu: relu,
  Relu6: relu6,
  Sigmoid: sigmoid,
  Tanh: tanh,
  Dequantize: copy,
  Gather: gather,
  LayerNormalization: layerNorm,
  Gelu: gelu,
  Transpose: transpose,
  Slice: slice,
  CausalMask: causalMask,
};

/** Kernels that repack their weights: the backend derives them once, at prepare, and keeps only that form. */
export const WEIGHT_PREPARERS: Readonly<Partial<Record<OpType, WeightPreparer>>> = {
  Conv: prepareConv,
  FullyConnected: prepareFullyConnected,
};

/** Bytes of kernel scratch in this process: scratch buffers and the SIMD engine's memory (both only grow). */
export function kernelScratchBytes(): number {
  return scratchBufferBytes() + simdMemoryBytes();
}
