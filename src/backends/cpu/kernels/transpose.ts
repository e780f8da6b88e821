import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { unaryOperands } from './common.ts';

type TransposeNode = Extract<Node, { op: 'Transpose' }>;

/**
 * Transpose: output dimension k is input dimension perm[k]. The output is written in order,
 * a row (its last dimension) at a time, reading the input with that dimension's stride; an
 * attention head split ([T, H, D] -> [H, T, D]) keeps D last, so each row is one contiguous
 * copy.
 */
export const transpose: Kernel = (call) => {
  const node = call.node as TransposeNode;
  const { x, shape, out, outShape } = unaryOperands(call);
  const rank = shape.length;
  if (node.perm.length !== rank) throw new Error(`node ${node.name} (Transpose): perm [${node.perm.join(', ')}] for rank ${rank}.`);
  if (out.length === 0) return;
  if (rank === 0) {
    out[0] = x[0];
    return;
  }
  const inStrides = new Array<number>(rank).fill(1);
  for (let k = rank - 2; k >= 0; k--) inStrides[k] = inStrides[k + 1] * shape[k + 1];
  // Input stride of each output dimension.
  const step = node.perm.map((k) => inStrides[k]);
  const last = rank - 1;
  const len = outShape[last];
  const inner = step[last];
  const rows = out.length / len;
  const index = new Array<number>(rank).fill(0);
  let from = 0;
  for (let row = 0, o = 0; row < rows; row++) {
    if (inner === 1) {
      out.set(x.subarray(from, from + len), o);
      o += len;
    } else {
      for (let t = 0, p = from; t < len; t++, p += inner) out[o++] = x[p];
    }
    for (let d = last - 1; d >= 0; d--) {
      from += step[d];
      if (++index[d] < outShape[d]) break;
      from -= step[d] * outShape[d];
      index[d] = 0;
    }
  }
};
