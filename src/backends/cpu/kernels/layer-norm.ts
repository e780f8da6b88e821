import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { checkLength, count, input, normalizeAxis, ScratchI32 } from './common.ts';
import { broadcastStrides } from '../../kernel-geometry.ts';

type LayerNormNode = Extract<Node, { op: 'LayerNormalization' }>;

/**
 * LayerNormalization (ONNX): each run of the axes from `axis` on is normalized to mean 0 and
 * variance 1 (the population variance, epsilon inside the square root), then scaled and
 * shifted by `scale` and `bias`, which broadcast against that run. Mean and variance are
 * taken in float64 over two passes: the values of a 768-wide row of a transformer differ
 * little from their mean, where one pass of sums of squares in float32 would cancel.
 */
export const layerNorm: Kernel = (call) => {
  const node = call.node as LayerNormNode;
  const x = input(call, 0);
  const scale = input(call, 1);
  const bias = call.inputs[2];
  const shape = call.inputShapes[0];
  const out = call.output;
  checkLength(call, x, shape, 'input');
  checkLength(call, out, shape, 'output');
  checkLength(call, scale, call.inputShapes[1], 'scale');
  if (bias !== undefined) checkLength(call, bias, call.inputShapes[2], 'bias');
  const axis = normalizeAxis(call, node.axis, shape.length);
  const normalized = shape.slice(axis);
  const width = count(normalized);
  if (width === 0) return;
  // Operands shaped like the run (a transformer's) are read as they are; others through an index of the run.
  const scaleAt = scale.length === width ? undefined : runIndex(call.inputShapes[1], normalized, scaleIndex);
  const biasAt = bias === undefined || bias.length === width ? undefined : runIndex(call.inputShapes[2], normalized, biasIndex);
  const rows = x.length / width;
  for (let r = 0; r < rows; r++) {
    const base = r * width;
    let sum = 0;
    for (let k = 0; k < width; k++) sum += x[base + k];
    const mean = sum / width;
    let squares = 0;
    for (let k = 0; k < width; k++) {
      const d = x[base + k] - mean;
      squares += d * d;
    }
    const inverse = 1 / Math.sqrt(squares / width + node.epsilon);
    for (let k = 0; k < width; k++) {
      const y = (x[base + k] - mean) * inverse * scale[scaleAt === undefined ? k : scaleAt[k]];
      out[base + k] = bias === undefined ? y : y + bias[biasAt === undefined ? k : biasAt[k]];
    }
  }
};

const scaleIndex = new ScratchI32();
const biasIndex = new ScratchI32();

/** For each element of the normalized run, the element of a broadcast operand it reads. */
function runIndex(shape: readonly number[], normalized: readonly number[], scratch: ScratchI32): Int32Array {
  const width = count(normalized);
  const at = scratch.get(width);
  const strides = broadcastStrides(shape, normalized);
  const index = new Array<number>(normalized.length).fill(0);
  let p = 0;
  for (let k = 0; k < width; k++) {
    at[k] = p;
    for (let d = normalized.length - 1; d >= 0; d--) {
      p += strides[d];
      if (++index[d] < normalized[d]) break;
      p -= strides[d] * normalized[d];
      index[d] = 0;
    }
  }
  return at;
}
