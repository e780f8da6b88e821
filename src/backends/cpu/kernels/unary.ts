import type { Kernel, KernelCall } from '../kernel.ts';
import { clampInto, sigmoidInto, tanhInto } from './activation.ts';
import { input } from './common.ts';

function sameLength(call: KernelCall): Float32Array {
  const x = input(call, 0);
  if (x.length !== call.output.length) {
    throw new Error(`node ${call.node.name} (${call.node.op}): the input has ${x.length} elements, the output ${call.output.length}.`);
  }
  return x;
}

export const relu: Kernel = (call) => {
  const x = sameLength(call);
  clampInto(x, call.output, 0, x.length, 0, Infinity);
};

export const relu6: Kernel = (call) => {
  const x = sameLength(call);
  clampInto(x, call.output, 0, x.length, 0, 6);
};

export const sigmoid: Kernel = (call) => {
  const x = sameLength(call);
  sigmoidInto(x, call.output, 0, x.length);
};

export const tanh: Kernel = (call) => {
  const x = sameLength(call);
  tanhInto(x, call.output, 0, x.length);
};

/**
 * Reshape, Flatten, Squeeze, and Dequantize of float32 data: the output has its own planned
 * memory, so the values are copied into it (row-major order does not change).
 */
export const copy: Kernel = (call) => {
  const x = sameLength(call);
  call.output.set(x);
};
