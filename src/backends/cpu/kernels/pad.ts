import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { unaryOperands } from './common.ts';

type PadNode = Extract<Node, { op: 'Pad' }>;

/** Pad with zeros: [before, after] per dimension. The output is cleared, then each innermost row copied in. */
export const pad: Kernel = (call) => {
  const node = call.node as PadNode;
  const { x, shape, out, outShape } = unaryOperands(call);
  const rank = shape.length;
  if (node.pads.length !== rank) throw new Error(`node ${node.name} (Pad): ${node.pads.length} pad pairs for rank ${rank}.`);
  for (let k = 0; k < rank; k++) {
    if (outShape[k] !== shape[k] + node.pads[k][0] + node.pads[k][1]) throw new Error(`node ${node.name} (Pad): output [${outShape.join(', ')}] does not fit the pads.`);
  }
  out.fill(0);
  if (x.length === 0) return;
  if (rank === 0) {
    out[0] = x[0];
    return;
  }
  const outStrides = new Array<number>(rank).fill(1);
  for (let k = rank - 2; k >= 0; k--) outStrides[k] = outStrides[k + 1] * outShape[k + 1];
  let start = 0;
  for (let k = 0; k < rank; k++) start += node.pads[k][0] * outStrides[k];
  const len = shape[rank - 1];
  const rows = x.length / len;
  const index = new Array<number>(rank).fill(0);
  let dst = start;
  for (let row = 0, src = 0; row < rows; row++) {
    for (let t = 0; t < len; t++) out[dst + t] = x[src++];
    for (let d = rank - 2; d >= 0; d--) {
      dst += outStrides[d];
      if (++index[d] < shape[d]) break;
      dst -= outStrides[d] * shape[d];
      index[d] = 0;
    }
  }
};
