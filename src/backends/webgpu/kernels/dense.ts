import type { Node } from '../../../graph/ir.ts';
import { KernelError, type WebGpuKernel } from '../kernel.ts';
import { biasValues, convSpec, type ConvGeometry } from './conv.ts';
import { checkRank, count, offsetsFromIndex, Params } from './wgsl.ts';

type FullyConnectedNode = Extract<Node, { op: 'FullyConnected' }>;
type GemmNode = Extract<Node, { op: 'Gemm' }>;

/**
 * FullyConnected (TFLite): weights [outFeatures, inFeatures], optional bias, the input taken
 * as rows of inFeatures values, fused activation. It runs as a 1x1 convolution over the rows
 * (weights repacked once to [inFeatures][outFeatures]).
 */
export const fullyConnected: WebGpuKernel = (context) => {
  const node = context.node as FullyConnectedNode;
  const wShape = context.inputShapes[1];
  if (wShape.length !== 2) throw new KernelError(node, `weights must be 2-D, got [${wShape.join(', ')}].`);
  const [outFeatures, depth] = wShape;
  const weights = context.constantInput(1);
  if (weights === undefined) throw new KernelError(node, 'the WebGPU backend needs constant weights.');
  const elements = count(context.inputShapes[0]);
  if (depth === 0 || elements % depth !== 0) throw new KernelError(node, `${elements} input values do not split into rows of ${depth}.`);
  const rows = elements / depth;
  if (count(context.outputShape) !== rows * outFeatures) throw new KernelError(node, `the output holds ${count(context.outputShape)} values, expected ${rows}x${outFeatures}.`);
  const taps = new Float32Array(depth * outFeatures);
  for (let o = 0; o < outFeatures; o++) for (let k = 0; k < depth; k++) taps[k * outFeatures + o] = weights[o * depth + k];
  const g: ConvGeometry = { n: 1, h: rows, w: 1, c: depth, oh: rows, ow: 1, o: outFeatures, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, pt: 0, pl: 0, groups: 1, cg: depth, og: outFeatures };
  return [convSpec(node.name, 'NHWC', g, taps, biasValues(context, 2, outFeatures), node.activation, node.inputs[0], node.outputs[0])];
};

/** MatMul (numpy semantics for rank >= 2): [..., M, K] x [..., K, N], batch dimensions broadcast; one output element per invocation. */
export const matMul: WebGpuKernel = (context) => {
  const { node } = context;
  const aShape = context.inputShapes[0];
  const bShape = context.inputShapes[1];
  const outShape = context.outputShape;
  if (aShape.length < 2 || bShape.length < 2) throw new KernelError(node, 'inputs must have rank 2 or more.');
  checkRank(context, outShape);
  const M = aShape[aShape.length - 2];
  const K = aShape[aShape.length - 1];
  const N = bShape[bShape.length - 1];
  if (bShape[bShape.length - 2] !== K) throw new KernelError(node, `inner dimensions ${K} and ${bShape[bShape.length - 2]} differ.`);
  const batchShape = outShape.slice(0, -2);
  const params = new Params()
    .u('M', M).u('K', K).u('N', N).u('BATCH_RANK', batchShape.length)
    .array('BATCH_SHAPE', batchShape)
    .array('A_STRIDES', batchStrides(aShape.slice(0, -2), batchShape, M * K))
    .array('B_STRIDES', batchStrides(bShape.slice(0, -2), batchShape, K * N));
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  let n = i % N;',
    '  let m = (i / N) % M;',
    offsetsFromIndex('i / (M * N)', 'BATCH_RANK', 'BATCH_SHAPE', [
      { variable: 'abase', strides: 'A_STRIDES' },
      { variable: 'bbase', strides: 'B_STRIDES' },
    ]),
    '  var s = 0.0f;',
    '  for (var k = 0u; k < K; k++) { s += a_ld(abase + m * K + k) * b_ld(bbase + k * N + n); }',
    '  y_st(i, s);',
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: [
        { kind: 'tensor', name: 'a', tensor: node.inputs[0], access: 'read' },
        { kind: 'tensor', name: 'b', tensor: node.inputs[1], access: 'read' },
        { kind: 'tensor', name: 'y', tensor: node.outputs[0], access: 'write' },
      ],
      code,
      params: params.values(),
      invocations: count(outShape),
    },
  ];
};

/** Element strides of an input's matrices per output batch dimension (0 where it broadcasts). */
function batchStrides(shape: readonly number[], batchShape: readonly number[], matrix: number): number[] {
  const rank = batchShape.length;
  const strides = new Array<number>(rank).fill(0);
  let stride = matrix;
  for (let k = shape.length - 1; k >= 0; k--) {
    const d = rank - shape.length + k;
    strides[d] = shape[k] === 1 ? 0 : stride;
    stride *= shape[k];
  }
  return strides;
}

/** Gemm (ONNX): Y = alpha * op(A) * op(B) + beta * C, op = transpose when asked; C optional, broadcast to [M, N]. */
export const gemm: WebGpuKernel = (context) => {
  const node = context.node as GemmNode;
  const [ar, ac] = context.inputShapes[0];
  const [br, bc] = context.inputShapes[1];
  const [M, K] = node.transA ? [ac, ar] : [ar, ac];
  const N = node.transB ? br : bc;
  if ((node.transB ? bc : br) !== K) throw new KernelError(node, `inner dimensions ${K} and ${node.transB ? bc : br} differ.`);
  const hasC = node.inputs[2] !== undefined && node.inputs[2] !== '' && node.beta !== 0;
  const cShape = hasC ? context.inputShapes[2] : [];
  const cRows = cShape.length === 2 ? cShape[0] : 1;
  const cCols = cShape.length === 0 ? 1 : cShape[cShape.length - 1];
  if (hasC && (cShape.length > 2 || (cRows !== 1 && cRows !== M) || (cCols !== 1 && cCols !== N))) {
    throw new KernelError(node, `C [${cShape.join(', ')}] does not broadcast to [${M}, ${N}].`);
  }
  // A(m, k) at m * A_M + k * A_K; B(k, n) at k * B_K + n * B_N; C(m, n) at m * C_M + n * C_N.
  const params = new Params()
    .u('M', M).u('K', K).u('N', N)
    .u('A_M', node.transA ? 1 : K).u('A_K', node.transA ? M : 1)
    .u('B_K', node.transB ? 1 : N).u('B_N', node.transB ? K : 1)
    .u('C_M', cRows === 1 ? 0 : cCols).u('C_N', cCols === 1 ? 0 : 1)
    .f('ALPHA', node.alpha).f('BETA', node.beta);
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  let n = i % N;',
    '  let m = i / N;',
    '  var s = 0.0f;',
    '  for (var k = 0u; k < K; k++) { s += a_ld(m * A_M + k * A_K) * b_ld(k * B_K + n * B_N); }',
    hasC ? '  y_st(i, ALPHA * s + BETA * c_ld(m * C_M + n * C_N));' : '  y_st(i, ALPHA * s);',
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: [
        { kind: 'tensor', name: 'a', tensor: node.inputs[0], access: 'read' },
        { kind: 'tensor', name: 'b', tensor: node.inputs[1], access: 'read' },
        ...(hasC ? [{ kind: 'tensor', name: 'c', tensor: node.inputs[2], access: 'read' } as const] : []),
        { kind: 'tensor', name: 'y', tensor: node.outputs[0], access: 'write' },
      ],
      code,
      params: params.values(),
      invocations: M * N,
    },
  ];
};
