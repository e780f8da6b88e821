import type { Node } from '../../../graph/ir.ts';
import { inputOutputArgs, KernelError, type WebGpuKernel } from '../kernel.ts';
import { checkRank, count, normalizeAxis, offsetsFromIndex, Params, stridesOf } from './wgsl.ts';

type MeanNode = Extract<Node, { op: 'Mean' }>;

/**
 * Mean over any axes, keepDims or not (the kept elements are in the same order either way):
 * one output element per invocation, summing its reduced elements.
 */
export const mean: WebGpuKernel = (context) => {
  const node = context.node as MeanNode;
  const shape = context.inputShapes[0];
  checkRank(context, shape);
  const rank = shape.length;
  const reduced = new Array<boolean>(rank).fill(false);
  for (const axis of node.axes) reduced[normalizeAxis(context, axis, rank)] = true;
  const strides = stridesOf(shape);
  const keptShape = shape.filter((_, k) => !reduced[k]);
  const reducedShape = shape.filter((_, k) => reduced[k]);
  const outCount = count(keptShape);
  const reducedCount = count(reducedShape);
  if (count(context.outputShape) !== outCount) throw new KernelError(node, `the output holds ${count(context.outputShape)} values, expected ${outCount}.`);
  if (reducedCount === 0) throw new KernelError(node, 'the mean of no elements is undefined.');
  const params = new Params()
    .u('KEPT_RANK', keptShape.length).array('KEPT_SHAPE', keptShape).array('KEPT_STRIDES', strides.filter((_, k) => !reduced[k]))
    .u('REDUCED_RANK', reducedShape.length).array('REDUCED_SHAPE', reducedShape).array('REDUCED_STRIDES', strides.filter((_, k) => reduced[k]))
    .u('REDUCED_COUNT', reducedCount);
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    offsetsFromIndex('i', 'KEPT_RANK', 'KEPT_SHAPE', [{ variable: 'base', strides: 'KEPT_STRIDES' }]),
    '  var acc = 0.0f;',
    '  for (var q = 0u; q < REDUCED_COUNT; q++) {',
    offsetsFromIndex('q', 'REDUCED_RANK', 'REDUCED_SHAPE', [{ variable: 'at', strides: 'REDUCED_STRIDES' }], '    '),
    '    acc += x_ld(base + at);',
    '  }',
    '  y_st(i, acc / f32(REDUCED_COUNT));',
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: inputOutputArgs(node),
      code,
      params: params.values(),
      invocations: outCount,
    },
  ];
};
