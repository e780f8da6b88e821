import type { WebGpuKernelTable } from '../kernel.ts';
import { concat } from './concat.ts';
import { conv } from './conv.ts';
import { fullyConnected, gemm, matMul } from './dense.ts';
import { add, copy, mul, relu, relu6, sigmoid, tanh } from './elementwise.ts';
import { pad } from './pad.ts';
import { averagePool, globalAveragePool, maxPool } from './pool.ts';
import { mean } from './reduce.ts';
import { resize } from './resize.ts';
import { softmax } from './softmax.ts';
import { transpose } from './transpose.ts';

/**
 * The WGSL kernels, one per op of the IR but the transformer ops (kernel.ts; Transpose, which
 * ONNX files have of their own, has one), with the CPU kernels' semantics (cpu/kernels/).
 * Every kernel writes only its output (Reshape, Flatten, Squeeze and Dequantize copy into
 * the output's planned memory, as on the CPU).
 */
export const WEBGPU_KERNELS: WebGpuKernelTable = {
  Conv: conv,
  FullyConnected: fullyConnected,
  MatMul: matMul,
  Gemm: gemm,
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
  Transpose: transpose,
};
