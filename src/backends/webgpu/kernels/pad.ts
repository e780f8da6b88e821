import type { Node } from '../../../graph/ir.ts';
import { inputOutputArgs, KernelError, type WebGpuKernel } from '../kernel.ts';
import { checkRank, count, Params, stridesOf } from './wgsl.ts';

type PadNode = Extract<Node, { op: 'Pad' }>;

/** Pad with zeros, [before, after] per dimension: each output element reads its input element or is 0. */
export const pad: WebGpuKernel = (context) => {
  const node = context.node as PadNode;
  const shape = context.inputShapes[0];
  const outShape = context.outputShape;
  checkRank(context, shape);
  const rank = shape.length;
  if (node.pads.length !== rank) throw new KernelError(node, `${node.pads.length} pad pairs for rank ${rank}.`);
  for (let k = 0; k < rank; k++) {
    if (outShape[k] !== shape[k] + node.pads[k][0] + node.pads[k][1]) throw new KernelError(node, `output [${outShape.join(', ')}] does not fit the pads.`);
  }
  const params = new Params()
    .u('RANK', rank)
    .array('OUT_SHAPE', outShape)
    .array('IN_SHAPE', shape)
    .array('BEFORE', node.pads.map((p) => p[0]))
    .array('IN_STRIDES', stridesOf(shape));
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  var rest_ = i;',
    '  var at = 0u;',
    '  var inside = true;',
    '  for (var d = RANK; d > 0u; d--) {',
    '    let dim = prm(OUT_SHAPE + d - 1u);',
    '    let q = i32(rest_ % dim) - i32(prm(BEFORE + d - 1u));',
    '    rest_ = rest_ / dim;',
    '    inside = inside && q >= 0i && q < i32(prm(IN_SHAPE + d - 1u));',
    '    at += u32(max(q, 0i)) * prm(IN_STRIDES + d - 1u);',
    '  }',
    '  y_st(i, select(0.0f, x_ld(select(0u, at, inside)), inside));',
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: inputOutputArgs(node),
      code,
      params: params.values(),
      invocations: count(outShape),
    },
  ];
};
