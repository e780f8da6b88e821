import type { Activation, Node } from '../../../graph/ir.ts';
import { inputOutputArgs, KernelError, type DispatchSpec, type KernelContext, type WebGpuKernel } from '../kernel.ts';
import { act, checkRank, count, offsetsFromIndex, Params } from './wgsl.ts';
import { broadcastStrides } from '../../kernel-geometry.ts';

type BinaryNode = Extract<Node, { op: 'Add' | 'Mul' }>;

/**
 * Add and Mul with numpy broadcasting, then the fused activation. An operand that varies
 * only along the trailing axes of the output (a full tensor, a per-channel vector in NHWC) is
 * read at index i % its length, a scalar at 0, 4 elements at a time when every length
 * allows; any other broadcast walks per-operand strides, one element per invocation.
 */
export const add: WebGpuKernel = (context) => [binarySpec(context, '+')];
export const mul: WebGpuKernel = (context) => [binarySpec(context, '*')];

function binarySpec(context: KernelContext, operator: '+' | '*'): DispatchSpec {
  const node = context.node as BinaryNode;
  const outShape = context.outputShape;
  const n = count(outShape);
  const shapes = [context.inputShapes[0], context.inputShapes[1]];
  for (const shape of shapes) {
    if (shape.length > outShape.length) throw new KernelError(node, `input [${shape.join(', ')}] has a higher rank than the output [${outShape.join(', ')}].`);
  }
  const tails = shapes.map((shape) => tailLength(shape, outShape));
  const params = new Params().activation(node.activation);
  const lines = ['fn run(i: u32) {'];
  let vec = false;
  if (tails[0] !== undefined && tails[1] !== undefined) {
    vec = n % 4 === 0 && tails.every((t) => t === 1 || t! % 4 === 0);
    params.u('LEN_A', vec && tails[0] !== 1 ? tails[0] / 4 : tails[0]).u('LEN_B', vec && tails[1] !== 1 ? tails[1] / 4 : tails[1]);
    lines.push(params.lets());
    const operand = (name: string, t: number, length: string): string => {
      if (t === 1) return vec ? `vec4<f32>(${name}_ld(0u))` : `${name}_ld(0u)`;
      return vec ? `${name}_ld4(i % ${length})` : `${name}_ld(i % ${length})`;
    };
    const expr = `${operand('a', tails[0], 'LEN_A')} ${operator} ${operand('b', tails[1], 'LEN_B')}`;
    lines.push(vec ? `  y_st4(i, ${act(expr, true)});` : `  y_st(i, ${act(expr)});`);
  } else {
    checkRank(context, outShape);
    params.u('RANK', outShape.length).array('SHAPE', outShape).array('A_STRIDES', broadcastStrides(shapes[0], outShape)).array('B_STRIDES', broadcastStrides(shapes[1], outShape));
    lines.push(params.lets());
    lines.push(
      offsetsFromIndex('i', 'RANK', 'SHAPE', [
        { variable: 'ia', strides: 'A_STRIDES' },
        { variable: 'ib', strides: 'B_STRIDES' },
      ]),
    );
    lines.push(`  y_st(i, ${act(`a_ld(ia) ${operator} b_ld(ib)`)});`);
  }
  lines.push('}');
  const vecOf = (t: number | undefined): boolean => vec && t !== 1;
  return {
    label: node.name,
    args: [
      { kind: 'tensor', name: 'a', tensor: node.inputs[0], access: 'read', vec4: vecOf(tails[0]) },
      { kind: 'tensor', name: 'b', tensor: node.inputs[1], access: 'read', vec4: vecOf(tails[1]) },
      { kind: 'tensor', name: 'y', tensor: node.outputs[0], access: 'write', vec4: vec },
    ],
    code: lines.join('\n'),
    params: params.values(),
    invocations: vec ? n / 4 : n,
  };
}

/**
 * When `shape`, broadcast against `outShape`, is 1 on the leading axes and equal to the
 * output on the trailing ones, the number of elements it has (its values repeat with that
 * period along the output); otherwise undefined.
 */
function tailLength(shape: readonly number[], outShape: readonly number[]): number | undefined {
  const offset = outShape.length - shape.length;
  const dim = (k: number): number => (k < offset ? 1 : shape[k - offset]);
  let k = outShape.length;
  while (k > 0 && dim(k - 1) === outShape[k - 1]) k--;
  for (let d = 0; d < k; d++) if (dim(d) !== 1) return undefined;
  let length = 1;
  for (let d = k; d < outShape.length; d++) length *= outShape[d];
  return length;
}


/** y = activation(x) elementwise, 4 elements per invocation when the count allows ('none' copies). */
function unarySpec(context: KernelContext, activation: Activation): DispatchSpec {
  const { node } = context;
  const n = count(context.outputShape);
  const inputCount = count(context.inputShapes[0]);
  if (inputCount !== n) throw new KernelError(node, `the input has ${inputCount} elements, the output ${n}.`);
  const vec = n % 4 === 0;
  const params = new Params().activation(activation);
  return {
    label: node.name,
    args: inputOutputArgs(node, vec),
    code: `fn run(i: u32) {\n${params.lets()}\n  ${vec ? `y_st4(i, ${act('x_ld4(i)', true)})` : `y_st(i, ${act('x_ld(i)')})`};\n}`,
    params: params.values(),
    invocations: vec ? n / 4 : n,
  };
}

const unary =
  (activation: Activation): WebGpuKernel =>
  (context) => [unarySpec(context, activation)];

export const relu = unary('relu');
export const relu6 = unary('relu6');
export const sigmoid = unary('sigmoid');
export const tanh = unary('tanh');

/**
 * Reshape, Flatten, Squeeze, and Dequantize of float32 data: the output has its own planned
 * memory, so the values are copied into it (row-major order does not change).
 */
export const copy = unary('none');
