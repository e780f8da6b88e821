import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { normalizeAxis, unaryOperands } from './common.ts';

type SoftmaxNode = Extract<Node, { op: 'Softmax' }>;

/** Softmax along one axis: exp(beta * (x - max)) / sum, the maximum subtracted for stability. */
export const softmax: Kernel = (call) => {
  const node = call.node as SoftmaxNode;
  const { x, shape, out } = unaryOperands(call);
  if (x.length === 0) return;
  const axis = shape.length === 0 ? 0 : normalizeAxis(call, node.axis, shape.length);
  const len = shape.length === 0 ? 1 : shape[axis];
  let inner = 1;
  for (let k = axis + 1; k < shape.length; k++) inner *= shape[k];
  const outer = x.length / (len * inner);
  const beta = node.beta;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      const end = base + len * inner;
      let max = -Infinity;
      for (let p = base; p < end; p += inner) if (x[p] > max) max = x[p];
      let sum = 0;
      for (let p = base; p < end; p += inner) {
        const e = Math.exp((x[p] - max) * beta);
        out[p] = e;
        sum += e;
      }
      const scale = 1 / sum;
      for (let p = base; p < end; p += inner) out[p] *= scale;
    }
  }
};
