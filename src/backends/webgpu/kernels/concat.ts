import type { Node } from '../../../graph/ir.ts';
import { KernelError, type DispatchSpec, type WebGpuKernel } from '../kernel.ts';
import { act, count, normalizeAxis, Params } from './wgsl.ts';

type ConcatNode = Extract<Node, { op: 'Concat' }>;

/**
 * Concat along any axis, then the fused activation: one dispatch per input, each copying
 * its runs (per index of the axes before `axis`, shape[axis] * (product of the later axes)
 * values) into its place in the output, 4 values at a time when the runs allow.
 */
export const concat: WebGpuKernel = (context) => {
  const node = context.node as ConcatNode;
  const outShape = context.outputShape;
  const axis = normalizeAxis(context, node.axis, outShape.length);
  let outer = 1;
  for (let k = 0; k < axis; k++) outer *= outShape[k];
  const outRun = count(outShape) / Math.max(1, outer);
  const specs: DispatchSpec[] = [];
  let offset = 0;
  node.inputs.forEach((name, index) => {
    if (name === '') return;
    const run = count(context.inputShapes[index]) / Math.max(1, outer);
    if (run > 0) {
      const vec = run % 4 === 0 && offset % 4 === 0 && outRun % 4 === 0;
      const lanes = vec ? 4 : 1;
      const params = new Params().u('RUN', run / lanes).u('OUT_RUN', outRun / lanes).u('OFFSET', offset / lanes).activation(node.activation);
      const store = vec ? `y_st4((i / RUN) * OUT_RUN + OFFSET + i % RUN, ${act('x_ld4(i)', true)});` : `y_st((i / RUN) * OUT_RUN + OFFSET + i % RUN, ${act('x_ld(i)')});`;
      specs.push({
        label: `${node.name} (input ${index})`,
        args: [
          { kind: 'tensor', name: 'x', tensor: name, access: 'read', vec4: vec },
          { kind: 'tensor', name: 'y', tensor: node.outputs[0], access: 'write', vec4: vec },
        ],
        code: `fn run(i: u32) {\n${params.lets()}\n  ${store}\n}`,
        params: params.values(),
        invocations: outer * (run / lanes),
      });
    }
    offset += run;
  });
  if (offset !== outRun) throw new KernelError(node, `the inputs fill ${offset} of ${outRun} values per row along axis ${axis}.`);
  return specs;
};
