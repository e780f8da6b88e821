import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { normalizeAxis, unaryOperands } from './common.ts';

type SliceNode = Extract<Node, { op: 'Slice' }>;

/**
 * Slice with step 1: the output is written in order, a row (the input's last dimension cut to
 * its range) at a time, each row one contiguous copy from the input (a class token, the first
 * T rows of a position table).
 */
export const slice: Kernel = (call) => {
  const node = call.node as SliceNode;
  const { x, shape, out, outShape } = unaryOperands(call);
  const rank = shape.length;
  if (out.length === 0) return;
  if (rank === 0) {
    out[0] = x[0];
    return;
  }
  const starts = new Array<number>(rank).fill(0);
  node.axes.forEach((a, k) => {
    starts[normalizeAxis(call, a, rank)] = node.starts[k];
  });
  const strides = new Array<number>(rank).fill(1);
  for (let k = rank - 2; k >= 0; k--) strides[k] = strides[k + 1] * shape[k + 1];
  let from = 0;
  for (let k = 0; k < rank; k++) from += starts[k] * strides[k];
  const last = rank - 1;
  const len = outShape[last];
  const rows = out.length / len;
  const index = new Array<number>(rank).fill(0);
  for (let row = 0, o = 0; row < rows; row++, o += len) {
    out.set(x.subarray(from, from + len), o);
    for (let d = last - 1; d >= 0; d--) {
      from += strides[d];
      if (++index[d] < outShape[d]) break;
      from -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
};
