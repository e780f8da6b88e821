import { GraphError, type Layout, type Node, type Padding } from './ir.ts';

/** Where height, width and channels sit in a 4-D activation. */
export function spatialAxes(layout: Layout): { height: number; width: number; channels: number } {
  return layout === 'NHWC' ? { height: 1, width: 2, channels: 3 } : { height: 2, width: 3, channels: 1 };
}

/** Output length of a sliding window (convolution or pooling) along one axis. */
export function windowOutput(input: number, kernel: number, stride: number, dilation: number, padding: Padding, axis: 0 | 1): number {
  const span = (kernel - 1) * dilation + 1;
  switch (padding.kind) {
    case 'same':
      return Math.ceil(input / stride);
    case 'valid':
      return Math.floor((input - span) / stride) + 1;
    case 'explicit': {
      const before = padding.pads[axis];
      const after = padding.pads[axis + 2];
      return Math.floor((input + before + after - span) / stride) + 1;
    }
  }
}

/** TFLite/TF "SAME" padding actually applied: [before, after] along one axis. */
export function samePadding(input: number, kernel: number, stride: number, dilation: number): [number, number] {
  const span = (kernel - 1) * dilation + 1;
  const output = Math.ceil(input / stride);
  const total = Math.max(0, (output - 1) * stride + span - input);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
}

function normalizeAxis(axis: number, rank: number, node: Node): number {
  const normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) throw new GraphError(`node ${node.name} (${node.op}): axis ${axis} is out of range for rank ${rank}.`);
  return normalized;
}

function broadcast(a: readonly number[], b: readonly number[], node: Node): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let k = 0; k < rank; k++) {
    const x = a[a.length - rank + k] ?? 1;
    const y = b[b.length - rank + k] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new GraphError(`node ${node.name} (${node.op}): shapes [${a}] and [${b}] do not broadcast.`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

/**
 * The shapes of a node's outputs from the shapes of its inputs ('' inputs get []).
 * Throws a GraphError that names the node when the inputs do not fit the op.
 */
export function inferOutputShapes(node: Node, inputs: readonly (readonly number[])[], layout: Layout): number[][] {
  const x = inputs[0] ?? [];
  const need4d = (): void => {
    if (x.length !== 4) throw new GraphError(`node ${node.name} (${node.op}): expected a 4-D input, got [${x}].`);
  };
  const axes = spatialAxes(layout);
  switch (node.op) {
    case 'Conv':
    case 'AveragePool':
    case 'MaxPool': {
      need4d();
      const dilations = node.op === 'Conv' ? node.dilations : ([1, 1] as const);
      const out = [...x];
      out[axes.height] = windowOutput(x[axes.height], node.kernel[0], node.strides[0], dilations[0], node.padding, 0);
      out[axes.width] = windowOutput(x[axes.width], node.kernel[1], node.strides[1], dilations[1], node.padding, 1);
      if (node.op === 'Conv') {
        if (x[axes.channels] % node.groups !== 0) {
          throw new GraphError(`node ${node.name} (Conv): ${x[axes.channels]} input channels do not split into ${node.groups} groups.`);
        }
        out[axes.channels] = node.outChannels;
      }
      if (out[axes.height] <= 0 || out[axes.width] <= 0) throw new GraphError(`node ${node.name} (${node.op}): the window does not fit the input [${x}].`);
      return [out];
    }
    case 'GlobalAveragePool': {
      need4d();
      const out = [...x];
      out[axes.height] = 1;
      out[axes.width] = 1;
      return [out];
    }
    case 'Mean': {
      const reduced = new Set(node.axes.map((a) => normalizeAxis(a, x.length, node)));
      return [node.keepDims ? x.map((d, k) => (reduced.has(k) ? 1 : d)) : x.filter((_, k) => !reduced.has(k))];
    }
    case 'FullyConnected': {
      const weights = inputs[1] ?? [];
      if (weights.length !== 2) throw new GraphError(`node ${node.name} (FullyConnected): weights must be 2-D [outputs, inputs], got [${weights}].`);
      const depth = weights[1];
      const total = x.reduce((p, d) => p * d, 1);
      if (total % depth !== 0) throw new GraphError(`node ${node.name} (FullyConnected): input [${x}] does not split into rows of ${depth}.`);
      return [node.keepDims ? [...x.slice(0, -1), node.outFeatures] : [total / depth, node.outFeatures]];
    }
    case 'MatMul': {
      const b = inputs[1] ?? [];
      if (x.length < 2 || b.length < 2 || x[x.length - 1] !== b[b.length - 2]) {
        throw new GraphError(`node ${node.name} (MatMul): shapes [${x}] and [${b}] do not multiply.`);
      }
      return [[...broadcast(x.slice(0, -2), b.slice(0, -2), node), x[x.length - 2], b[b.length - 1]]];
    }
    case 'Gemm': {
      const b = inputs[1] ?? [];
      if (x.length !== 2 || b.length !== 2) throw new GraphError(`node ${node.name} (Gemm): inputs must be 2-D, got [${x}] and [${b}].`);
      const [m, k] = node.transA ? [x[1], x[0]] : [x[0], x[1]];
      const [k2, n] = node.transB ? [b[1], b[0]] : [b[0], b[1]];
      if (k !== k2) throw new GraphError(`node ${node.name} (Gemm): inner dimensions ${k} and ${k2} differ.`);
      return [[m, n]];
    }
    case 'Add':
    case 'Mul':
      return [broadcast(x, inputs[1] ?? [], node)];
    case 'Concat': {
      const axis = normalizeAxis(node.axis, x.length, node);
      const out = [...x];
      out[axis] = 0;
      for (const shape of inputs) {
        if (shape.length !== x.length || shape.some((d, k) => k !== axis && d !== x[k])) {
          throw new GraphError(`node ${node.name} (Concat): [${shape}] does not fit [${x}] along axis ${axis}.`);
        }
        out[axis] += shape[axis];
      }
      return [out];
    }
    case 'Pad': {
      if (node.pads.length !== x.length) throw new GraphError(`node ${node.name} (Pad): ${node.pads.length} pad pairs for rank ${x.length}.`);
      return [x.map((d, k) => d + node.pads[k][0] + node.pads[k][1])];
    }
    case 'Reshape':
      return [resolveReshape(x, node.shape, node)];
    case 'Flatten': {
      const axis = node.axis < 0 ? node.axis + x.length : node.axis;
      const head = x.slice(0, axis).reduce((p, d) => p * d, 1);
      return [[head, x.slice(axis).reduce((p, d) => p * d, 1)]];
    }
    case 'Squeeze': {
      const drop = new Set(node.axes.map((a) => normalizeAxis(a, x.length, node)));
      return [x.filter((d, k) => (drop.size === 0 ? d !== 1 : !drop.has(k)))];
    }
    case 'Resize': {
      need4d();
      const out = [...x];
      out[axes.height] = node.size[0];
      out[axes.width] = node.size[1];
      return [out];
    }
    case 'Gather': {
      const indices = inputs[1] ?? [];
      const axis = normalizeAxis(node.axis, x.length, node);
      if (node.rows !== undefined) {
        const { start, of } = node.rows;
        if (axis !== 0 || !Number.isInteger(start) || start < 0 || start + x[0] > of) {
          throw new GraphError(`node ${node.name} (Gather): rows [${start}, ${start + x[0]}) of a table of ${of} along axis ${axis} do not fit.`);
        }
      }
      const out = [...x.slice(0, axis), ...indices, ...x.slice(axis + 1)];
      const previous = inputs[2];
      if (previous !== undefined && previous.join() !== out.join()) throw new GraphError(`node ${node.name} (Gather): the earlier slices' result [${previous}] is not [${out}].`);
      return [out];
    }
    case 'LayerNormalization': {
      const axis = normalizeAxis(node.axis, x.length, node);
      const normalized = x.slice(axis);
      for (const k of [1, 2]) {
        const shape = inputs[k];
        if (shape === undefined || (k === 2 && shape.length === 0)) continue;
        const fits = shape.length <= normalized.length && shape.every((d, i) => d === normalized[normalized.length - shape.length + i] || d === 1);
        if (!fits) throw new GraphError(`node ${node.name} (LayerNormalization): ${k === 1 ? 'scale' : 'bias'} [${shape}] does not broadcast to the normalized [${normalized}].`);
      }
      return [[...x]];
    }
    case 'Transpose': {
      const seen = new Set(node.perm);
      if (node.perm.length !== x.length || seen.size !== x.length || node.perm.some((k) => !Number.isInteger(k) || k < 0 || k >= x.length)) {
        throw new GraphError(`node ${node.name} (Transpose): perm [${node.perm}] is not a permutation of rank ${x.length}.`);
      }
      return [node.perm.map((k) => x[k])];
    }
    case 'Slice': {
      const out = [...x];
      if (node.starts.length !== node.axes.length || node.ends.length !== node.axes.length) throw new GraphError(`node ${node.name} (Slice): axes, starts and ends differ in length.`);
      const seen = new Set<number>();
      node.axes.forEach((a, k) => {
        const axis = normalizeAxis(a, x.length, node);
        const [start, end] = [node.starts[k], node.ends[k]];
        if (seen.has(axis) || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > x[axis] || start > end) {
          throw new GraphError(`node ${node.name} (Slice): [${start}, ${end}) along axis ${a} does not fit [${x}].`);
        }
        seen.add(axis);
        out[axis] = end - start;
      });
      return [out];
    }
    case 'CausalMask':
      if (x.length < 2 || x[x.length - 1] < x[x.length - 2]) throw new GraphError(`node ${node.name} (CausalMask): scores [${x}] are not [..., queries, keys] with at least as many keys as queries.`);
      return [[...x]];
    case 'Gelu':
    case 'Softmax':
    case 'Relu':
    case 'Relu6':
    case 'Sigmoid':
    case 'Tanh':
    case 'Dequantize':
      return [[...x]];
  }
}

/** A reshape target with one -1 (inferred) and ONNX's 0 (copy the input's dimension). */
export function resolveReshape(input: readonly number[], target: readonly number[], node: Node): number[] {
  const total = input.reduce((p, d) => p * d, 1);
  const out = target.map((d, k) => (d === 0 ? input[k] : d));
  const unknown = out.indexOf(-1);
  const known = out.reduce((p, d) => (d === -1 ? p : p * d), 1);
  if (unknown >= 0) {
    if (known === 0 || total % known !== 0) throw new GraphError(`node ${node.name} (Reshape): [${input}] cannot become [${target}].`);
    out[unknown] = total / known;
  }
  if (out.reduce((p, d) => p * d, 1) !== total) throw new GraphError(`node ${node.name} (Reshape): [${input}] cannot become [${target}].`);
  return out;
}
