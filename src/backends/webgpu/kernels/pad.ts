import type { Node } from '../../../graph/ir.ts';
import { type DispatchSpec, inputOutputArgs, type KernelContext, KernelError, type WebGpuKernel } from '../kernel.ts';
import { checkRank, count, Params, stridesOf } from './wgsl.ts';

type PadNode = Extract<Node, { op: 'Pad' }>;

/**
 * Pad with zeros, [before, after] per dimension: each output element reads its input element
 * or is 0. A pad of the last axis alone (BlazeFace's channel padding) takes a kernel of its
 * own: one division per element (per four, where the rows and the pad are whole fours), where
 * the general one walks every axis.
 */
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
  if (node.pads.every(([before, after], k) => k === rank - 1 || (before === 0 && after === 0))) return [lastAxisPad(context, shape[rank - 1], outShape[rank - 1], node.pads[rank - 1][0])];
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

/**
 * Rows of `inRow` values to rows of `outRow`, `before` zeros ahead of each and zeros after.
 * When all three are multiples of 4, an invocation writes 4 values (vec4 loads and stores).
 */
function lastAxisPad(context: KernelContext, inRow: number, outRow: number, before: number): DispatchSpec {
  const node = context.node as PadNode;
  const vec = inRow % 4 === 0 && outRow % 4 === 0 && before % 4 === 0;
  const unit = vec ? 4 : 1;
  const params = new Params().u('IN_ROW', inRow / unit).u('OUT_ROW', outRow / unit).u('BEFORE', before / unit);
  const [ld, st, zero] = vec ? ['x_ld4', 'y_st4', 'vec4<f32>(0.0f)'] : ['x_ld', 'y_st', '0.0f'];
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  let row = i / OUT_ROW;',
    '  let k = i - row * OUT_ROW;',
    '  let inside = k >= BEFORE && k < BEFORE + IN_ROW;',
    `  ${st}(i, select(${zero}, ${ld}(select(0u, row * IN_ROW + k - BEFORE, inside)), inside));`,
    '}',
  ].join('\n');
  return { label: node.name, args: inputOutputArgs(node, vec), code, params: params.values(), invocations: count(context.outputShape) / unit };
}
