import { GraphError, elementCount, type Graph, type Node, type Tensor } from './ir.ts';
import { broadcastConstants, checkConvertedShapes, flattenAxis, keepsOrder, normalizeAxis } from './layout-conversion.ts';
import { resolveReshape } from './shape-inference.ts';

/**
 * NHWC -> NCHW: the same network, its tensors in ONNX's layout.
 *
 * - Every 4-D tensor's shape is permuted [n, h, w, c] -> [n, c, h, w] (a constant's data
 *   with it, when present).
 * - Convolution weights go to OIHW: OHWI [O, H, W, I] -> [O, I, H, W]; depthwise 1HWO
 *   [1, H, W, O] -> [O, 1, H, W] with groups = input channels. A weight that a Dequantize
 *   produces (TFLite's fp16 weights) is converted together with the Dequantize's input.
 * - Axis attributes that refer to a 4-D tensor are rewritten (Concat axis, Mean axes,
 *   Softmax axis, Squeeze axes, Slice axes, Pad's per-dimension pads); a Transpose of a 4-D
 *   tensor gets the permutation that does the same through NCHW. LayerNormalization and
 *   CausalMask (trailing axes) and Gather of 4-D tensors are refused.
 * - A constant operand of Add/Mul of rank < 4 that broadcasts against a 4-D result (e.g. a
 *   per-channel [C] vector) becomes 4-D [1, C, 1, 1] (padded with leading ones, permuted).
 * - Reshape, Flatten, Squeeze and FullyConnected of a
 *   4-D tensor are converted only where NHWC and NCHW order the elements the same way (the
 *   dimensions that are not 1 keep their relative order, e.g. 1x1 spatial as in
 *   [1, 1, 1, 1001] -> [1, 1001]); anything else is a GraphError.
 * - Shape-carrying constant inputs that some readers keep on a node (TFLite's Reshape shape
 *   tensor, Pad paddings, Mean axis tensor) are left as they are: the node's attributes are
 *   what counts.
 *
 * Tensor names, sizes and node order do not change, so `graphToProblem` gives the same
 * records. Every node's output shape is checked against shape inference afterwards.
 */
export function toNchw(graph: Graph): Graph {
  return convertToNchw(graph).graph;
}

/**
 * Nodes of a converted graph (by output tensor name) that, to keep NHWC semantics, need
 * their input put back in NHWC order first (`input`) and/or their NHWC-ordered result put in
 * NCHW order after (`output`): what a Transpose around the node would do. `toNchw` keeps a
 * graph's tensors (and records) as they are, so it refuses such graphs; an exporter that
 * writes the Transposes (ONNX) asks for them with `keepNhwcOrder`.
 */
export type NhwcOrderNodes = ReadonlyMap<string, { readonly input: boolean; readonly output: boolean }>;

export interface NchwConversion {
  readonly graph: Graph;
  readonly nhwcOrder: NhwcOrderNodes;
}

/**
 * `toNchw` with a way out for Reshape, Flatten and FullyConnected (without keepDims) of 4-D
 * tensors that NHWC and NCHW order differently (BlazeFace's [1, 16, 16, 2] -> [1, 512, 1]):
 * with `keepNhwcOrder` they are listed in `nhwcOrder` instead of refused. Their IR nodes
 * still have consistent NCHW shapes (a Flatten becomes no other op; its axis is chosen so
 * that the output shape is the same); only the element order needs the listed transposes.
 */
export function convertToNchw(graph: Graph, options: { readonly keepNhwcOrder?: boolean } = {}): NchwConversion {
  const nhwcOrder = new Map<string, { input: boolean; output: boolean }>();
  if (graph.layout === 'NCHW') return { graph, nhwcOrder };
  /** Refuses a node that needs a transpose, or notes it when the caller can write one. */
  const transpose = (node: Node, side: 'input' | 'output', why: string): void => {
    if (!options.keepNhwcOrder) fail(node, why);
    const entry = nhwcOrder.get(node.outputs[0]) ?? { input: false, output: false };
    entry[side] = true;
    nhwcOrder.set(node.outputs[0], entry);
  };
  const shapeOf = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
  const fail = (node: Node, why: string): never => {
    throw new GraphError(`node ${node.name} (${node.op}): converting ${graph.name} from NHWC to NCHW is not supported: ${why}.`);
  };

  // Tensors that get a special conversion instead of the plain 4-D permutation.
  const special = new Map<string, { perm: readonly number[]; shape: readonly number[]; by: Node }>();
  const plan = (name: string, perm: readonly number[], shape: readonly number[], node: Node): void => {
    const before = special.get(name);
    if (before && (before.perm.join() !== perm.join() || before.shape.join() !== shape.join())) {
      fail(node, `tensor ${name} is also used by node ${before.by.name} in another way`);
    }
    special.set(name, { perm, shape, by: node });
  };
  const producer = new Map<string, Node>();
  for (const node of graph.nodes) for (const output of node.outputs) producer.set(output, node);

  const nodes: Node[] = graph.nodes.map((node): Node => {
    const x = shapeOf(node.inputs[0] ?? '');
    const out = shapeOf(node.outputs[0] ?? '');
    switch (node.op) {
      case 'Conv': {
        const weight = node.inputs[1] ?? '';
        const w = shapeOf(weight);
        if (w.length !== 4) fail(node, `weights ${weight} are not 4-D`);
        let perm: number[];
        let groups = node.groups;
        if (node.weightLayout === 'OIHW') {
          perm = [0, 1, 2, 3]; // already ONNX's layout: keep it out of the activation permutation
        } else if (node.weightLayout === 'OHWI') {
          perm = [0, 3, 1, 2];
        } else {
          if (w[0] !== 1) fail(node, `depthwise weights ${weight} [${w}] do not start with 1`);
          perm = [3, 0, 1, 2];
          groups = x[3];
        }
        const shape = perm.map((k) => w[k]);
        plan(weight, perm, shape, node);
        // TFLite's fp16 weights: the weight is the output of a Dequantize of a constant.
        const dequantize = producer.get(weight);
        if (dequantize?.op === 'Dequantize' && shapeOf(dequantize.inputs[0]).join() === w.join()) plan(dequantize.inputs[0], perm, shape, node);
        return { ...node, groups, weightLayout: 'OIHW' };
      }
      case 'FullyConnected':
        if (x.length === 4) {
          if (node.keepDims) fail(node, `it keeps the dimensions of the 4-D input [${x}]`);
          if (!sameOrder(x)) transpose(node, 'input', `it flattens [${x}], whose elements NHWC and NCHW order differently`);
        }
        return node;
      case 'Add':
      case 'Mul':
        for (const { name, padded } of broadcastConstants(graph, node, fail)) plan(name, NHWC_TO_NCHW, permute(padded), node);
        return node;
      case 'Concat':
        return out.length === 4 ? { ...node, axis: AXIS_TO_NCHW[normalizeAxis(node.axis, 4, node)] } : node;
      case 'Mean':
        return x.length === 4 ? { ...node, axes: node.axes.map((a) => AXIS_TO_NCHW[normalizeAxis(a, 4, node)]) } : node;
      case 'Softmax':
        return x.length === 4 ? { ...node, axis: AXIS_TO_NCHW[normalizeAxis(node.axis, 4, node)] } : node;
      case 'Squeeze':
        return x.length === 4 ? { ...node, axes: node.axes.map((a) => AXIS_TO_NCHW[normalizeAxis(a, 4, node)]) } : node;
      case 'Pad':
        if (x.length !== 4) return node;
        if (node.pads.length !== 4) fail(node, `${node.pads.length} pad pairs for a 4-D input`);
        return { ...node, pads: NHWC_TO_NCHW.map((k) => node.pads[k]) };
      case 'Reshape': {
        const target = resolveReshape(x, node.shape, node);
        if (x.length === 4 && !sameOrder(x)) transpose(node, 'input', `it reshapes [${x}], whose elements NHWC and NCHW order differently`);
        if (target.length === 4 && !sameOrder(target)) transpose(node, 'output', `its result [${target}] orders its elements differently in NHWC and NCHW`);
        return { ...node, shape: target.length === 4 ? permute(target) : target };
      }
      case 'Flatten': {
        if (x.length !== 4) return node;
        if (!sameOrder(x)) transpose(node, 'input', `it flattens [${x}], whose elements NHWC and NCHW order differently`);
        return { ...node, axis: flattenAxis(node, permute(x), out, fail) };
      }
      case 'MatMul':
        if (node.inputs.some((name) => shapeOf(name).length === 4)) fail(node, 'it multiplies 4-D tensors');
        return node;
      case 'Transpose':
        // NCHW output axis k is NHWC output axis NHWC_TO_NCHW[k], which reads NHWC input axis perm[...], NCHW axis AXIS_TO_NCHW[...].
        return x.length === 4 ? { ...node, perm: NHWC_TO_NCHW.map((k) => AXIS_TO_NCHW[node.perm[k]]) } : node;
      case 'Slice':
        return x.length === 4 ? { ...node, axes: node.axes.map((a) => AXIS_TO_NCHW[normalizeAxis(a, 4, node)]) } : node;
      case 'LayerNormalization':
      case 'CausalMask':
        // Both work on trailing axes, which NCHW orders differently.
        if (x.length === 4) fail(node, `its input [${x}] is 4-D`);
        return node;
      case 'Gather':
        if (node.inputs.some((name) => shapeOf(name).length === 4) || out.length === 4) fail(node, 'it gathers from or into a 4-D tensor');
        return node;
      default:
        return node;
    }
  });

  const tensors = new Map<string, Tensor>();
  for (const [name, tensor] of graph.tensors) {
    const planned = special.get(name);
    if (planned) {
      const source = tensor.shape.length === planned.perm.length ? tensor.shape : [...new Array<number>(planned.perm.length - tensor.shape.length).fill(1), ...tensor.shape];
      tensors.set(name, convertTensor(tensor, source, planned.perm, planned.shape));
    } else if (tensor.shape.length === 4) {
      tensors.set(name, convertTensor(tensor, tensor.shape, NHWC_TO_NCHW, permute(tensor.shape)));
    } else {
      tensors.set(name, tensor);
    }
  }
  const converted: Graph = { ...graph, layout: 'NCHW', nodes, tensors };

  checkConvertedShapes(converted, 'NHWC', fail);
  return { graph: converted, nhwcOrder };
}

/** nchw[i] = nhwc[NHWC_TO_NCHW[i]]. */
const NHWC_TO_NCHW = [0, 3, 1, 2] as const;
/** An NHWC axis -> the same dimension's NCHW axis. */
const AXIS_TO_NCHW = [0, 2, 3, 1] as const;

function permute(nhwc: readonly number[]): number[] {
  return NHWC_TO_NCHW.map((k) => nhwc[k]);
}

/** Whether an NHWC shape and its NCHW permutation order their elements the same way. */
export function sameOrder(nhwc: readonly number[]): boolean {
  return keepsOrder(nhwc, NHWC_TO_NCHW);
}

function convertTensor(tensor: Tensor, source: readonly number[], perm: readonly number[], shape: readonly number[]): Tensor {
  if (tensor.data === undefined) return { ...tensor, shape };
  return { ...tensor, shape, data: permuteData(tensor.data, source, perm, tensor.name) };
}

/**
 * Moves a constant's elements: result dimension i is source dimension perm[i]. Works on
 * the bytes, so any typed array (or raw bytes) keeps its kind.
 */
export function permuteData(data: ArrayBufferView, source: readonly number[], perm: readonly number[], name: string): ArrayBufferView {
  const count = elementCount(source);
  if (count === 0) return data;
  const width = data.byteLength / count;
  if (!Number.isInteger(width) || width < 1) throw new GraphError(`constant ${name} has ${data.byteLength} bytes of data, which do not fit its ${count} elements.`);
  // Copy to a fresh (aligned) buffer and move whole elements through a view of their width.
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  const out = new Uint8Array(bytes.length);
  const View = width === 1 ? Uint8Array : width === 2 ? Uint16Array : width === 4 ? Uint32Array : width === 8 ? BigUint64Array : undefined;
  const from = View ? new View(bytes.buffer) : undefined;
  const to = View ? new View(out.buffer) : undefined;
  const rank = source.length;
  const strides = new Array<number>(rank).fill(1);
  for (let k = rank - 2; k >= 0; k--) strides[k] = strides[k + 1] * source[k + 1];
  const shape = perm.map((k) => source[k]);
  const step = perm.map((k) => strides[k]);
  const index = new Array<number>(rank).fill(0);
  let at = 0; // source element of the current target element
  for (let target = 0; target < count; target++) {
    if (from && to) (to as Uint32Array)[target] = (from as Uint32Array)[at];
    else out.set(bytes.subarray(at * width, (at + 1) * width), target * width);
    for (let k = rank - 1; k >= 0; k--) {
      at += step[k];
      if (++index[k] < shape[k]) break;
      at -= step[k] * shape[k];
      index[k] = 0;
    }
  }
  const Kind = data.constructor as new (buffer: ArrayBuffer) => ArrayBufferView;
  return new Kind(out.buffer);
}
