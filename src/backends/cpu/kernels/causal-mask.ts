import type { Kernel } from '../kernel.ts';
import { unaryOperands } from './common.ts';

/**
 * CausalMask over scores [..., T, S]: query i keeps keys j <= i + S - T and gets -Infinity
 * for the later ones (the Softmax after it then weighs them 0, as onnxruntime does for an
 * added mask of 0 and -inf). Every query keeps at least its own key, so no row is all -inf.
 */
export const causalMask: Kernel = (call) => {
  const { x, shape, out } = unaryOperands(call);
  if (shape.length < 2) throw new Error(`node ${call.node.name} (CausalMask): scores [${shape.join(', ')}] have fewer than 2 dimensions.`);
  const queries = shape[shape.length - 2];
  const keys = shape[shape.length - 1];
  if (keys < queries) throw new Error(`node ${call.node.name} (CausalMask): ${keys} keys for ${queries} queries.`);
  const matrices = x.length / Math.max(1, queries * keys);
  for (let m = 0, at = 0; m < matrices; m++) {
    for (let i = 0; i < queries; i++, at += keys) {
      const visible = i + keys - queries + 1;
      out.set(x.subarray(at, at + visible), at);
      out.fill(-Infinity, at + visible, at + keys);
    }
  }
};
