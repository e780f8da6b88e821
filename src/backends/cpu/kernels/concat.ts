import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { applyActivation } from './activation.ts';
import { checkLength, normalizeAxis } from './common.ts';

type ConcatNode = Extract<Node, { op: 'Concat' }>;

/**
 * Concat along any axis (negative counts from the end), then the fused activation. Each
 * input contributes, per index of the axes before `axis`, one contiguous run of
 * shape[axis] * (product of the later axes) values.
 */
export const concat: Kernel = (call) => {
  const node = call.node as ConcatNode;
  const out = call.output;
  const outShape = call.outputShape;
  checkLength(call, out, outShape, 'output');
  const rank = outShape.length;
  const axis = normalizeAxis(call, node.axis, rank);
  let outer = 1;
  for (let k = 0; k < axis; k++) outer *= outShape[k];
  const outRun = out.length / Math.max(1, outer);
  let offset = 0;
  for (let i = 0; i < call.inputs.length; i++) {
    const x = call.inputs[i];
    if (x === undefined) continue;
    checkLength(call, x, call.inputShapes[i], `input ${i}`);
    const run = x.length / Math.max(1, outer);
    if (outer === 1) {
      out.set(x, offset);
    } else {
      for (let o = 0, src = 0, dst = offset; o < outer; o++, dst += outRun - run) {
        for (let end = src + run; src < end; src++, dst++) out[dst] = x[src];
      }
    }
    offset += run;
  }
  if (offset !== outRun) throw new Error(`node ${node.name} (Concat): the inputs fill ${offset} of ${outRun} values per row along axis ${axis}.`);
  applyActivation(out, node.activation);
};
