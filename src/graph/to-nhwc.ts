import { GraphError, type Graph, type Node, type Tensor } from './ir.ts';
import { broadcastConstants, checkConvertedShapes, flattenAxis, keepsOrder, normalizeAxis } from './layout-conversion.ts';
import { resolveReshape } from './shape-inference.ts';

/**
 * NCHW -> NHWC: an ONNX network laid out as the CPU executors run convolutions, pools and
 * the other window ops in place (graph/layer-memory.ts `inPlaceLayer` takes NHWC graphs
 * only; an NCHW one runs every convolution on views with a copy of its weights of its own).
 * The same function, in the other layout:
 *
 * - Every 4-D tensor's shape is permuted [n, c, h, w] -> [n, h, w, c], graph inputs and
 *   outputs too. A 4-D constant (a per-channel [1, C, 1, 1] operand) is permuted only where
 *   that keeps its elements' order (the dimensions that are not 1 keep their relative
 *   order), so that its values, seeded or read, are the same stream in either layout.
 * - Convolution weights stay as they are: OIHW, which the NHWC kernels read (their packing
 *   and depthwise taps index OIHW), and so does a Dequantize that makes them.
 * - Axis attributes that refer to a 4-D tensor are rewritten (Concat, Softmax, Mean,
 *   Squeeze and Slice axes, Pad's per-dimension pads, a Transpose's permutation).
 * - A constant of rank < 4 that Add or Mul broadcasts against a 4-D result (ONNX's [C, 1, 1]
 *   bias) becomes 4-D [1, 1, 1, C].
 * - Reshape, Flatten, FullyConnected and Squeeze that read a 4-D tensor whose elements NCHW
 *   and NHWC order differently read it through a Transpose to NCHW order (the tensor
 *   `<tensor>@nchw`, written by the node `<reader>@nchw`); a Reshape whose 4-D result they order differently writes that
 *   NCHW-ordered result first and a Transpose puts it in NHWC order. Mean without keepDims
 *   must keep the order of what it leaves.
 * - LayerNormalization, CausalMask, Gather and MatMul of 4-D tensors, FullyConnected with
 *   keepDims of one, and any other case not listed are refused (GraphError).
 *
 * Every node's output shape is checked against shape inference afterwards.
 */
export function toNhwc(graph: Graph): Graph {
  if (graph.layout === 'NHWC') return graph;
  const fail = (node: Node, why: string): never => {
    throw new GraphError(`node ${node.name} (${node.op}): converting ${graph.name} from NCHW to NHWC is not supported: ${why}.`);
  };
  const shapeOf = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
  const producer = new Map<string, Node>();
  for (const node of graph.nodes) for (const output of node.outputs) producer.set(output, node);

  // Tensors that keep their NCHW shape and data: convolution weights (and what dequantizes into them).
  const kept = new Set<string>();
  // Constants of rank < 4 that Add or Mul broadcast against a 4-D result: their 4-D NHWC shape.
  const broadcast = new Map<string, readonly number[]>();
  for (const node of graph.nodes) {
    if (node.op !== 'Conv') continue;
    const weight = node.inputs[1] ?? '';
    if (node.weightLayout !== 'OIHW') fail(node, `its weights are ${node.weightLayout}, not ONNX's OIHW`);
    kept.add(weight);
    const dequantize = producer.get(weight);
    if (dequantize?.op === 'Dequantize') kept.add(dequantize.inputs[0]);
  }

  const nodes: Node[] = [];
  const tensors = new Map<string, Tensor>();
  const fresh = (name: string, node: Node): string => {
    if (graph.tensors.has(name) || tensors.has(name)) fail(node, `the name ${name} it needs for a transpose is taken`);
    return name;
  };
  // 4-D tensors that also exist in NCHW order (a Reshape's result before its Transpose), and the Transposes this adds.
  const inNchwOrder = new Map<string, string>();
  const added = new Set<Node>();
  /** Adds a Transpose node of this conversion's own (named after `node`, `suffix`). */
  const addTranspose = (perm: readonly number[], node: Node, suffix: string, input: string, output: string): void => {
    const transpose: Node = { op: 'Transpose', perm, name: fresh(`${node.name}${suffix}`, node), inputs: [input], outputs: [output] };
    nodes.push(transpose);
    added.add(transpose);
  };
  /** A tensor of the NCHW-ordered values of 4-D NHWC `name`: the one a Transpose writes (its NCHW shape). */
  const toNchwOrder = (name: string, node: Node): string => {
    const known = inNchwOrder.get(name);
    if (known !== undefined) return known;
    const ordered = fresh(`${name}@nchw`, node);
    inNchwOrder.set(name, ordered);
    tensors.set(ordered, { ...(graph.tensors.get(name) as Tensor), name: ordered, constant: false, data: undefined });
    addTranspose(NHWC_TO_NCHW_PERM, node, '@nchw', name, ordered);
    return ordered;
  };

  for (const node of graph.nodes) {
    const x = shapeOf(node.inputs[0] ?? '');
    const out = shapeOf(node.outputs[0] ?? '');
    if (node.inputs.some((name) => kept.has(name)) && node.op !== 'Conv' && node.op !== 'Dequantize') {
      fail(node, 'it reads a convolution weight');
    }
    switch (node.op) {
      case 'Conv':
      case 'Relu':
      case 'Relu6':
      case 'Sigmoid':
      case 'Tanh':
      case 'Gelu':
      case 'Dequantize':
      case 'AveragePool':
      case 'MaxPool':
      case 'GlobalAveragePool':
      case 'Resize':
        nodes.push(node);
        break;
      case 'Add':
      case 'Mul':
        for (const { name, padded } of broadcastConstants(graph, node, fail)) {
          if (!sameOrder(padded)) fail(node, `constant ${name} [${padded}] orders its elements differently in NHWC`);
          broadcast.set(name, permute(padded));
        }
        nodes.push(node);
        break;
      case 'Concat':
      case 'Softmax':
        nodes.push(out.length === 4 ? { ...node, axis: AXIS_TO_NHWC[normalizeAxis(node.axis, 4, node)] } : node);
        break;
      case 'Slice':
        nodes.push(x.length === 4 ? { ...node, axes: node.axes.map((a) => AXIS_TO_NHWC[normalizeAxis(a, 4, node)]) } : node);
        break;
      case 'Mean': {
        if (x.length !== 4) {
          nodes.push(node);
          break;
        }
        const axes = node.axes.map((a) => normalizeAxis(a, 4, node));
        // Without keepDims what is left is not 4-D and not permuted: it must come out in the same order.
        if (!node.keepDims && !sameOrder(x.map((d, k) => (axes.includes(k) ? 1 : d)))) fail(node, `what it leaves of [${x}] is ordered differently in NHWC`);
        nodes.push({ ...node, axes: axes.map((a) => AXIS_TO_NHWC[a]) });
        break;
      }
      case 'Squeeze':
        if (x.length !== 4) nodes.push(node);
        else if (sameOrder(x)) nodes.push({ ...node, axes: node.axes.map((a) => AXIS_TO_NHWC[normalizeAxis(a, 4, node)]) });
        else nodes.push({ ...node, inputs: [toNchwOrder(node.inputs[0], node), ...node.inputs.slice(1)] });
        break;
      case 'Pad':
        if (x.length !== 4) nodes.push(node);
        else if (node.pads.length !== 4) fail(node, `${node.pads.length} pad pairs for a 4-D input`);
        else nodes.push({ ...node, pads: NCHW_TO_NHWC_PERM.map((k) => node.pads[k]) });
        break;
      case 'Transpose':
        // NHWC output axis k is NCHW output axis NCHW_TO_NHWC_PERM[k], which reads NCHW input axis perm[...], NHWC axis AXIS_TO_NHWC[...].
        nodes.push(x.length === 4 ? { ...node, perm: NCHW_TO_NHWC_PERM.map((k) => AXIS_TO_NHWC[node.perm[k]]) } : node);
        break;
      case 'Flatten':
        if (x.length !== 4) nodes.push(node);
        else if (sameOrder(x)) nodes.push({ ...node, axis: flattenAxis(node, permute(x), out, fail) });
        else nodes.push({ ...node, inputs: [toNchwOrder(node.inputs[0], node)] });
        break;
      case 'FullyConnected':
        if (x.length === 4 && node.keepDims) fail(node, `it keeps the dimensions of the 4-D input [${x}]`);
        nodes.push(x.length === 4 && !sameOrder(x) ? { ...node, inputs: [toNchwOrder(node.inputs[0], node), ...node.inputs.slice(1)] } : node);
        break;
      case 'Reshape': {
        const target = resolveReshape(x, node.shape, node);
        const input = x.length === 4 && !sameOrder(x) ? toNchwOrder(node.inputs[0], node) : node.inputs[0];
        const inputs = [input, ...node.inputs.slice(1)];
        if (target.length !== 4) {
          nodes.push({ ...node, inputs, shape: target });
        } else if (sameOrder(target)) {
          nodes.push({ ...node, inputs, shape: permute(target) });
        } else {
          // The NCHW-ordered result, then a Transpose into the output's NHWC order.
          const output = node.outputs[0];
          const ordered = fresh(`${output}@nchw`, node);
          tensors.set(ordered, { ...(graph.tensors.get(output) as Tensor), name: ordered, shape: target, constant: false, data: undefined });
          inNchwOrder.set(output, ordered);
          nodes.push({ ...node, inputs, shape: target, outputs: [ordered] });
          addTranspose(NCHW_TO_NHWC_PERM, node, '@nhwc', ordered, output);
        }
        break;
      }
      default:
        // MatMul, Gemm, Gather, LayerNormalization, CausalMask: on tensors of rank < 4 only.
        if ([...node.inputs, ...node.outputs].some((name) => shapeOf(name).length === 4)) fail(node, 'it works on a 4-D tensor');
        nodes.push(node);
    }
  }

  for (const [name, tensor] of graph.tensors) {
    const shape = broadcast.get(name);
    if (shape !== undefined) tensors.set(name, { ...tensor, shape });
    else if (tensor.shape.length !== 4 || kept.has(name)) tensors.set(name, tensor);
    else if (tensor.constant && !sameOrder(tensor.shape))
      throw new GraphError(`constant ${name} [${tensor.shape}] of ${graph.name} orders its elements differently in NHWC; converting it from NCHW is not supported.`);
    else tensors.set(name, { ...tensor, shape: permute(tensor.shape) });
  }
  // A Transpose added for a Reshape's result that every reader takes in NCHW order after all: nothing reads it.
  const read = new Set([...nodes.flatMap((n) => n.inputs), ...graph.outputs]);
  const unread = new Set(nodes.filter((n) => added.has(n) && !read.has(n.outputs[0])));
  for (const node of unread) tensors.delete(node.outputs[0]);
  const converted: Graph = { ...graph, layout: 'NHWC', nodes: nodes.filter((n) => !unread.has(n)), tensors };

  checkConvertedShapes(converted, 'NCHW', fail);
  return withoutTransposePairs(converted, new Set(inNchwOrder.values()));
}

/**
 * Two Transposes in a row, the first's result read by nothing else, as one (their
 * permutations composed), or as none where they undo each other: an ONNX file exported from
 * an NHWC network puts its tensors in NHWC order before a Reshape, and the Reshape here asks
 * for NCHW order again (or writes its result in NCHW order, which the file's Transpose puts
 * in NHWC order). Where a pair is dropped its readers read the first's input; when that is
 * one of this conversion's own tensors (`ours`: a Reshape's NCHW-ordered result) read by
 * the pair alone, its producer writes the pair's result instead, so the file's name stays.
 */
function withoutTransposePairs(graph: Graph, ours: ReadonlySet<string>): Graph {
  const readers = new Map<string, number>();
  for (const node of graph.nodes) for (const name of node.inputs) readers.set(name, (readers.get(name) ?? 0) + 1);
  const producer = new Map<string, Node>();
  for (const node of graph.nodes) for (const output of node.outputs) producer.set(output, node);
  const dropped = new Set<Node>();
  const replaced = new Map<Node, Node>();
  const alias = new Map<string, string>();
  const renamed = new Map<string, string>();
  for (const second of graph.nodes) {
    if (second.op !== 'Transpose') continue;
    const first = producer.get(second.inputs[0]);
    if (first?.op !== 'Transpose' || dropped.has(first) || replaced.has(first) || readers.get(first.outputs[0]) !== 1 || graph.outputs.includes(first.outputs[0])) continue;
    // Output axis k of the pair is axis second.perm[k] of the first's result, axis first.perm[second.perm[k]] of its input.
    const perm = second.perm.map((k) => first.perm[k]);
    dropped.add(first);
    if (perm.every((k, i) => k === i) && ours.has(first.inputs[0]) && readers.get(first.inputs[0]) === 1) {
      dropped.add(second);
      renamed.set(first.inputs[0], second.outputs[0]);
    } else if (perm.every((k, i) => k === i) && !graph.outputs.includes(second.outputs[0])) {
      dropped.add(second);
      alias.set(second.outputs[0], first.inputs[0]);
    } else {
      replaced.set(second, { ...second, perm, inputs: first.inputs });
    }
  }
  if (dropped.size === 0) return graph;
  const resolve = (name: string): string => alias.get(name) ?? name;
  const nodes = graph.nodes
    .filter((n) => !dropped.has(n))
    .map((n) => replaced.get(n) ?? n)
    .map((n) => ({ ...n, inputs: n.inputs.map(resolve), outputs: n.outputs.map((name) => renamed.get(name) ?? name) }));
  const tensors = new Map(graph.tensors);
  for (const name of renamed.keys()) tensors.delete(name);
  const used = new Set(nodes.flatMap((n) => [...n.inputs, ...n.outputs]));
  for (const node of dropped) for (const name of node.outputs) if (!used.has(name) && !graph.outputs.includes(name)) tensors.delete(name);
  return { ...graph, nodes, tensors };
}

/**
 * The graph in NHWC where toNhwc converts it, else as it is (NCHW, run on views): what the
 * record option `nhwc` plans and runs.
 */
export function nhwcWherePossible(graph: Graph): Graph {
  return nhwcConversion(graph).graph;
}

/** nhwcWherePossible's graph, and why it stayed NCHW where it did (toNhwc's sentence). */
export function nhwcConversion(graph: Graph): { readonly graph: Graph; readonly refusal?: string } {
  try {
    return { graph: toNhwc(graph) };
  } catch (error) {
    if (error instanceof GraphError) return { graph, refusal: error.message };
    throw error;
  }
}

/** nhwc[i] = nchw[NCHW_TO_NHWC_PERM[i]]: a Transpose's perm from NCHW to NHWC order. */
const NCHW_TO_NHWC_PERM = [0, 2, 3, 1] as const;
/** The Transpose perm from NHWC to NCHW order. */
const NHWC_TO_NCHW_PERM = [0, 3, 1, 2] as const;
/** An NCHW axis -> the same dimension's NHWC axis. */
const AXIS_TO_NHWC = [0, 3, 1, 2] as const;

function permute(nchw: readonly number[]): number[] {
  return NCHW_TO_NHWC_PERM.map((k) => nchw[k]);
}

/** Whether an NCHW shape and its NHWC permutation order their elements the same way. */
function sameOrder(nchw: readonly number[]): boolean {
  return keepsOrder(nchw, NCHW_TO_NHWC_PERM);
}
