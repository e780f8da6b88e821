import type { Node } from '../../../graph/ir.ts';
import { inputOutputArgs, type WebGpuKernel } from '../kernel.ts';
import { count, LOWEST_F32, normalizeAxis, Params } from './wgsl.ts';

type SoftmaxNode = Extract<Node, { op: 'Softmax' }>;

/** Softmax along one axis, exp(beta * (x - max)) / sum: one row (every position along the axis) per invocation. */
export const softmax: WebGpuKernel = (context) => {
  const node = context.node as SoftmaxNode;
  const shape = context.inputShapes[0];
  const axis = shape.length === 0 ? 0 : normalizeAxis(context, node.axis, shape.length);
  const len = shape.length === 0 ? 1 : shape[axis];
  let inner = 1;
  for (let k = axis + 1; k < shape.length; k++) inner *= shape[k];
  const rows = count(shape) / (len * inner);
  const params = new Params().u('LEN', len).u('INNER', inner).f('BETA', node.beta);
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  let base = (i / INNER) * LEN * INNER + i % INNER;',
    `  var m = ${LOWEST_F32};`,
    '  for (var k = 0u; k < LEN; k++) { m = max(m, x_ld(base + k * INNER)); }',
    '  var s = 0.0f;',
    '  for (var k = 0u; k < LEN; k++) { s += exp((x_ld(base + k * INNER) - m) * BETA); }',
    '  let scale = 1.0f / s;',
    '  for (var k = 0u; k < LEN; k++) { let at = base + k * INNER; y_st(at, exp((x_ld(at) - m) * BETA) * scale); }',
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: inputOutputArgs(node),
      code,
      params: params.values(),
      invocations: rows * inner,
    },
  ];
};
