/**
 * ONNX operators as the IR's nodes: one case per op type this reader takes, each checking
 * what the IR cannot represent and saying so in one sentence (the .tflite reader keeps its
 * mapping in tflite/op-mapping.ts the same way). Standalone activations and the writer's
 * Transposes come back as entries of their own; read-onnx.ts fuses and folds them.
 */
import type { Activation, Node } from '../../graph/ir.ts';
import type { NodeView } from './node-view.ts';
import { MASK_SUFFIX, ONNX_TYPE, ONNX_TYPE_NAME } from './proto.ts';

/** A mapped node, or a standalone activation that may still be fused (see readOnnx). */
export type Entry =
  | { readonly kind: 'node'; node: Node }
  | { readonly kind: 'activation'; readonly activation: Exclude<Activation, 'none'>; readonly name: string; readonly input: string; readonly output: string };

export const entryInputs = (entry: Entry): readonly string[] => (entry.kind === 'node' ? entry.node.inputs : [entry.input]);
export const entryOutputs = (entry: Entry): readonly string[] => (entry.kind === 'node' ? entry.node.outputs : [entry.output]);

/**
 * The writer's CausalMask: Add(x, `Y:mask`) where the constant [T, S] is 0 on and below the
 * diagonal i + S - T and -inf above it (checked value by value where the file holds them).
 */
function isCausalMask(node: NodeView): boolean {
  const maskName = node.inputs[1];
  if (maskName !== node.outputs[0] + MASK_SUFFIX) return false;
  const mask = node.tensorOf(maskName);
  const xs = node.inputShape(0);
  if (!mask?.constant || mask.shape.length !== 2 || xs.length < 2 || mask.shape.join() !== xs.slice(-2).join()) return false;
  const [queries, keys] = mask.shape;
  if (keys < queries) return false;
  if (mask.data === undefined) return true;
  const values = node.constFloats(1, 'mask') ?? [];
  return values.every((v, e) => v === (e % keys > Math.floor(e / keys) + keys - queries ? -Infinity : 0));
}

/** Slice with step 1 (starts, ends, axes as inputs from opset 10, attributes before), bounds clamped to the input. */
function slice(node: NodeView, xs: readonly number[]): Record<string, unknown> {
  const late = node.opset >= 10;
  const starts = (late ? node.constInts(1, 'starts') : node.ints('starts')) ?? node.fail('it has no starts');
  const ends = (late ? node.constInts(2, 'ends') : node.ints('ends')) ?? node.fail('it has no ends');
  const axes = (late ? node.constInts(3, 'axes') : node.ints('axes')) ?? starts.map((_, k) => k);
  const steps = late ? node.constInts(4, 'steps') : undefined;
  if (steps?.some((step) => step !== 1)) node.fail(`steps [${steps}] are not supported (only 1)`);
  if (starts.length !== axes.length || ends.length !== axes.length) node.fail('starts, ends and axes differ in length');
  const clamp = (value: number, dim: number): number => Math.min(dim, Math.max(0, value < 0 ? value + dim : value));
  const normalized = axes.map((a) => (a < 0 ? a + xs.length : a));
  if (normalized.some((a) => a < 0 || a >= xs.length)) node.fail(`axes [${axes}] are out of range for rank ${xs.length}`);
  const clampedStarts = normalized.map((a, k) => clamp(starts[k], xs[a]));
  return { op: 'Slice', axes: normalized, starts: clampedStarts, ends: normalized.map((a, k) => Math.max(clampedStarts[k], clamp(ends[k], xs[a]))) };
}

/** The entry an ONNX node becomes. */
export function mapNode(node: NodeView): Entry {
  const { opType, inputs, opset } = node;
  const x = inputs[0] ?? '';
  const xs = node.inputShape(0);
  const ir = (spec: Record<string, unknown>, ins: readonly string[] = [x], required = 1): Entry => {
    const trimmed = [...ins];
    while (trimmed.length > 1 && trimmed[trimmed.length - 1] === '') trimmed.pop();
    if (trimmed.length < required || trimmed.slice(0, required).some((name) => name === '' || name === undefined)) {
      node.fail(`it needs ${required === 1 ? 'an input' : `${required} inputs`}`);
    }
    return { kind: 'node', node: { ...spec, name: node.name, inputs: trimmed, outputs: [node.outputs[0]] } as unknown as Node };
  };
  const activation = (kind: Exclude<Activation, 'none'>): Entry => {
    if (x === '') node.fail('its input is missing');
    return { kind: 'activation', activation: kind, name: node.name, input: x, output: node.outputs[0] };
  };
  switch (opType) {
    case 'Conv': {
      if (!inputs[1]) node.fail('it has no weights');
      const ws = node.inputShape(1);
      if (xs.length !== 4 || ws.length !== 4) node.fail(`only 2-D convolutions are supported (input [${xs}], weights [${ws}])`);
      const kernel = node.pair('kernel_shape', [ws[2], ws[3]], 1);
      if (kernel[0] !== ws[2] || kernel[1] !== ws[3]) node.fail(`kernel_shape [${kernel}] does not match the weights [${ws}]`);
      const strides = node.pair('strides', [1, 1], 1);
      const dilations = node.pair('dilations', [1, 1], 1);
      const groups = node.int('group', 1);
      if (groups < 1 || xs[1] !== ws[1] * groups) node.fail(`input [${xs}] with group ${groups} does not fit weights [${ws}]`);
      const padding = node.windowPadding(xs, kernel, strides, dilations, false);
      return ir({ op: 'Conv', kernel, strides, dilations, padding, groups, outChannels: ws[0], weightLayout: 'OIHW', activation: 'none' }, [x, inputs[1] ?? '', inputs[2] ?? ''], 2);
    }
    case 'AveragePool':
    case 'MaxPool': {
      if (xs.length !== 4) node.fail(`only 2-D pooling is supported (input [${xs}])`);
      const kernel = node.pair('kernel_shape', undefined, 1);
      const strides = node.pair('strides', [1, 1], 1);
      const dilations = node.pair('dilations', [1, 1], 1);
      if (dilations[0] !== 1 || dilations[1] !== 1) node.fail('dilated pooling is not supported');
      const padding = node.windowPadding(xs, kernel, strides, [1, 1], node.int('ceil_mode', 0) === 1);
      return ir({ op: opType, kernel, strides, padding, activation: 'none' });
    }
    case 'GlobalAveragePool':
      return ir({ op: 'GlobalAveragePool' });
    case 'GlobalMaxPool':
      if (xs.length !== 4) node.fail(`only 2-D pooling is supported (input [${xs}])`);
      return ir({ op: 'MaxPool', kernel: [xs[2], xs[3]], strides: [1, 1], padding: { kind: 'valid' }, activation: 'none' });
    case 'Gemm':
      return ir(
        { op: 'Gemm', transA: node.int('transA', 0) !== 0, transB: node.int('transB', 0) !== 0, alpha: node.float('alpha', 1), beta: node.float('beta', 1) },
        [x, inputs[1] ?? '', inputs[2] ?? ''],
        2,
      );
    case 'MatMul':
      return ir({ op: 'MatMul' }, [x, inputs[1] ?? ''], 2);
    case 'Add':
    case 'Mul':
      if (opType === 'Add' && isCausalMask(node)) return ir({ op: 'CausalMask' });
      return ir({ op: opType, activation: 'none' }, [x, inputs[1] ?? ''], 2);
    case 'Gather': {
      const axis = node.int('axis', 0);
      if (axis < -xs.length || axis >= xs.length) node.fail(`axis ${axis} is out of range for rank ${xs.length}`);
      const indices = node.tensorOf(inputs[1] ?? '');
      if (indices !== undefined && indices.dtype !== 'int32' && indices.dtype !== 'int64') node.fail(`its indices ${inputs[1]} are ${indices.dtype}, not int32 or int64`);
      if (indices?.constant) node.fail(`its indices ${inputs[1]} are a constant; only computed indices (token ids) are supported`);
      return ir({ op: 'Gather', axis }, [x, inputs[1] ?? ''], 2);
    }
    case 'LayerNormalization': {
      const axis = node.int('axis', -1);
      if (axis < -xs.length || axis >= xs.length) node.fail(`axis ${axis} is out of range for rank ${xs.length}`);
      return ir({ op: 'LayerNormalization', axis, epsilon: node.float('epsilon', 1e-5) }, [x, inputs[1] ?? '', inputs[2] ?? ''], 2);
    }
    case 'Gelu': {
      const approximate = node.string('approximate', 'none');
      if (approximate !== 'none' && approximate !== 'tanh') node.fail(`approximate "${approximate}" is not one of none, tanh`);
      return ir({ op: 'Gelu', approximate });
    }
    case 'Slice':
      return ir(slice(node, xs));
    case 'Concat': {
      const axis = node.int('axis', opset < 4 ? 1 : undefined);
      return ir(
        { op: 'Concat', axis, activation: 'none' },
        inputs.filter((name) => name !== ''),
      );
    }
    case 'ReduceMean': {
      const axes = opset >= 18 ? (node.constInts(1, 'axes') ?? []) : (node.ints('axes') ?? []);
      const keepDims = node.int('keepdims', 1) !== 0;
      const noop = node.int('noop_with_empty_axes', 0) !== 0;
      return ir({ op: 'Mean', axes: axes.length === 0 && !noop ? xs.map((_, k) => k) : axes, keepDims });
    }
    case 'Pad': {
      const mode = node.string('mode', 'constant');
      if (mode !== 'constant') node.fail(`Pad mode ${mode} is not supported (only constant)`);
      const flat = opset >= 11 ? node.constInts(1, 'pads') : (node.ints('pads') ?? node.ints('paddings'));
      if (flat === undefined) node.fail('it has no pads');
      const axes = (opset >= 18 ? node.constInts(3, 'axes') : undefined) ?? xs.map((_, k) => k);
      if (flat.length !== 2 * axes.length) node.fail(`${flat.length} pads for ${axes.length} axes`);
      const pads = xs.map((): [number, number] => [0, 0]);
      axes.forEach((axis, k) => {
        const a = axis < 0 ? axis + xs.length : axis;
        if (a < 0 || a >= xs.length) node.fail(`axis ${axis} is out of range for rank ${xs.length}`);
        pads[a] = [flat[k], flat[k + axes.length]];
      });
      return ir({ op: 'Pad', pads });
    }
    case 'Reshape': {
      const target = opset >= 5 ? node.constInts(1, 'shape') : node.ints('shape');
      if (target === undefined) node.fail('it has no target shape');
      if (node.int('allowzero', 0) !== 0 && target.includes(0)) node.fail('allowzero with a 0 in the shape is not supported');
      return ir({ op: 'Reshape', shape: node.resolveReshape(xs, target) });
    }
    case 'Unsqueeze': {
      const axes = (opset >= 13 ? node.constInts(1, 'axes') : node.ints('axes')) ?? [];
      const rank = xs.length + axes.length;
      const at = new Set(axes.map((a) => (a < 0 ? a + rank : a)));
      if (at.size !== axes.length || [...at].some((a) => a < 0 || a >= rank)) node.fail(`axes [${axes}] do not fit rank ${rank}`);
      const shape: number[] = [];
      let next = 0;
      for (let k = 0; k < rank; k++) shape.push(at.has(k) ? 1 : xs[next++]);
      return ir({ op: 'Reshape', shape });
    }
    case 'Flatten': {
      const axis = node.int('axis', 1);
      if (axis < -xs.length || axis > xs.length) node.fail(`axis ${axis} is out of range for rank ${xs.length}`);
      return ir({ op: 'Flatten', axis });
    }
    case 'Squeeze': {
      const axes = (opset >= 13 ? node.constInts(1, 'axes') : node.ints('axes')) ?? [];
      for (const axis of axes) {
        const a = axis < 0 ? axis + xs.length : axis;
        if (xs[a] !== 1) node.fail(`axis ${axis} of [${xs}] is not 1`);
      }
      return ir({ op: 'Squeeze', axes });
    }
    case 'Softmax': {
      const axis = node.int('axis', opset < 13 ? 1 : -1);
      if (axis < -xs.length || axis >= xs.length) node.fail(`axis ${axis} is out of range for rank ${xs.length}`);
      return ir({ op: 'Softmax', axis, beta: 1 });
    }
    case 'Resize':
    case 'Upsample':
      return ir(node.resize(xs));
    case 'Transpose': {
      const perm = node.ints('perm') ?? xs.map((_, k) => xs.length - 1 - k);
      if (perm.length !== xs.length || new Set(perm).size !== xs.length || perm.some((k) => k < 0 || k >= xs.length)) node.fail(`perm [${perm}] is not a permutation of rank ${xs.length}`);
      return ir({ op: 'Transpose', perm });
    }
    case 'Relu':
      return activation('relu');
    case 'Sigmoid':
      return activation('sigmoid');
    case 'Tanh':
      return activation('tanh');
    case 'Clip': {
      const min = opset >= 11 ? (node.constFloats(1, 'min')?.[0] ?? -Infinity) : node.float('min', -Infinity);
      const max = opset >= 11 ? (node.constFloats(2, 'max')?.[0] ?? Infinity) : node.float('max', Infinity);
      if (min === 0 && max === 6) return activation('relu6');
      if (min === 0 && (max === Infinity || max >= 3.4e38)) return activation('relu');
      if (min === -1 && max === 1) return activation('relu-n1-to-1');
      return node.fail(`Clip(${min}, ${max}) is not supported; only Clip(0, 6) (ReLU6) and Clip(0, inf) (ReLU) are`);
    }
    case 'DequantizeLinear':
      for (const k of [1, 2]) if (inputs[k] && !node.tensorOf(inputs[k])?.constant) node.fail(`its ${k === 1 ? 'scale' : 'zero point'} ${inputs[k]} must be a constant`);
      return ir({ op: 'Dequantize' }, [x, inputs[1] ?? '', inputs[2] ?? ''], 2);
    case 'Cast': {
      const to = node.int('to', 0);
      const from = node.tensorOf(x)?.dtype;
      if (to !== ONNX_TYPE.FLOAT || (from !== 'float16' && from !== 'float32')) {
        node.fail(`only a Cast from float16 or float32 to float32 is supported (as Dequantize), not ${from} to ${ONNX_TYPE_NAME[to] ?? to}`);
      }
      return ir({ op: 'Dequantize' });
    }
    default:
      return node.fail(`op type ${opType} is not supported`);
  }
}
