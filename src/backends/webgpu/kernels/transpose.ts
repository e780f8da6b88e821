import type { Node } from '../../../graph/ir.ts';
import { inputOutputArgs, KernelError, type WebGpuKernel } from '../kernel.ts';
import { checkRank, count, Params, stridesOf } from './wgsl.ts';

type TransposeNode = Extract<Node, { op: 'Transpose' }>;

/**
 * Transpose: output axis k is input axis perm[k]. Each invocation writes one output element,
 * walking its index from the last axis, and reads the input element at the same coordinates
 * through the permuted strides (ONNX files' own Transposes: the attention heads, and the ones
 * an exporter puts before a reshape of NHWC-ordered data).
 */
export const transpose: WebGpuKernel = (context) => {
  const node = context.node as TransposeNode;
  const shape = context.inputShapes[0];
  const outShape = context.outputShape;
  checkRank(context, shape);
  const rank = shape.length;
  if (node.perm.length !== rank || node.perm.some((axis, k) => outShape[k] !== shape[axis])) {
    throw new KernelError(node, `perm [${node.perm.join(', ')}] does not take [${shape.join(', ')}] to [${outShape.join(', ')}].`);
  }
  const inStrides = stridesOf(shape);
  const params = new Params()
    .u('RANK', rank)
    .array('OUT_SHAPE', outShape)
    .array(
      'STRIDES',
      node.perm.map((axis) => inStrides[axis]),
    );
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  var rest_ = i;',
    '  var at = 0u;',
    '  for (var d = RANK; d > 0u; d--) {',
    '    let dim = prm(OUT_SHAPE + d - 1u);',
    '    at += (rest_ % dim) * prm(STRIDES + d - 1u);',
    '    rest_ = rest_ / dim;',
    '  }',
    '  y_st(i, x_ld(at));',
    '}',
  ].join('\n');
  return [{ label: node.name, args: inputOutputArgs(node), code, params: params.values(), invocations: count(outShape) }];
};
