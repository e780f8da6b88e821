import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { checkLength, input, normalizeAxis, ScratchF64 } from './common.ts';

type MeanNode = Extract<Node, { op: 'Mean' }>;

const sums = new ScratchF64();

/**
 * Mean over any axes (negative counting from the end), keepDims or not (the order of the
 * kept elements is the same either way). The input is walked once in order, each innermost
 * row added into float64 sums of the output's elements.
 */
export const mean: Kernel = (call) => {
  const node = call.node as MeanNode;
  const x = input(call, 0);
  const shape = call.inputShapes[0];
  const out = call.output;
  checkLength(call, x, shape, 'input');
  const rank = shape.length;
  const reduced = new Array<boolean>(rank).fill(false);
  for (const axis of node.axes) reduced[normalizeAxis(call, axis, rank)] = true;
  // Output strides over the input's axes (0 on reduced axes).
  const strides = new Array<number>(rank).fill(0);
  let outCount = 1;
  let reducedCount = 1;
  for (let k = rank - 1; k >= 0; k--) {
    if (reduced[k]) {
      reducedCount *= shape[k];
    } else {
      strides[k] = outCount;
      outCount *= shape[k];
    }
  }
  if (out.length !== outCount) throw new Error(`node ${node.name} (Mean): the output holds ${out.length} values, expected ${outCount}.`);
  if (rank === 0) {
    out[0] = x[0];
    return;
  }
  const acc = sums.get(outCount);
  acc.fill(0, 0, outCount);
  const last = rank - 1;
  const len = shape[last];
  const step = strides[last];
  const rows = len === 0 ? 0 : x.length / len;
  const index = new Array<number>(rank).fill(0);
  let base = 0;
  let src = 0;
  for (let row = 0; row < rows; row++) {
    if (step === 0) {
      let s = 0;
      for (let t = 0; t < len; t++) s += x[src++];
      acc[base] += s;
    } else {
      for (let t = 0, o = base; t < len; t++, o++) acc[o] += x[src++];
    }
    for (let d = last - 1; d >= 0; d--) {
      base += strides[d];
      if (++index[d] < shape[d]) break;
      base -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  const scale = reducedCount === 0 ? NaN : 1 / reducedCount;
  for (let o = 0; o < outCount; o++) out[o] = acc[o] * scale;
};
