import { describe, expect, it } from 'vitest';
import type { OpType } from '../../../../src/graph/ir.ts';
import { KERNELS } from '../../../../src/backends/cpu/kernels/index.ts';

/** Every op of the IR (the type check fails when an op is added and not listed). */
const ALL_OPS: Record<OpType, true> = {
  Conv: true,
  FullyConnected: true,
  MatMul: true,
  Gemm: true,
  Add: true,
  Mul: true,
  Concat: true,
  AveragePool: true,
  MaxPool: true,
  GlobalAveragePool: true,
  Mean: true,
  Pad: true,
  Reshape: true,
  Flatten: true,
  Squeeze: true,
  Softmax: true,
  Resize: true,
  Relu: true,
  Relu6: true,
  Sigmoid: true,
  Tanh: true,
  Dequantize: true,
  Gather: true,
  LayerNormalization: true,
  Gelu: true,
  Transpose: true,
  Slice: true,
  CausalMask: true,
};

describe('KERNELS', () => {
  it('has a kernel for every op of the IR', () => {
    for (const op of Object.keys(ALL_OPS) as OpType[]) expect(typeof KERNELS[op], op).toBe('function');
    expect(Object.keys(KERNELS).sort()).toEqual(Object.keys(ALL_OPS).sort());
  });
});
