import { elementCount, GraphError, type Graph, type Node, type Tensor } from './ir.ts';
import { convGeometryOf, convPath, GEMM_PANEL, layerMemory, packedFloats, paddedBiasFloats } from './layer-memory.ts';
import { spatialAxes } from './shape-inference.ts';

/**
 * Weight slicing (FlexNN's bottleneck-aware slicing, section 3.2): a FullyConnected layer or
 * a convolution of one group whose weights (in the executor's form, layer-memory.ts) exceed
 * `maxSliceBytes` becomes the fewest sub-layers whose weights fit, each computing a run of
 * output channels (whole panels of GEMM_PANEL, the last one what is left) into an output of
 * its own, followed by a Concat of their outputs along the channels into the layer's
 * output. Each sub-layer is one layer of the budgeted problem, with its own weight record,
 * so that only one slice need be resident at a time.
 *
 * Outputs are bit-identical to the layer's: each output channel is the same sum in the same
 * order (the matrix product computes each column on its own), and the Concat only copies.
 * A graph without weight values (planning only) is sliced the same; with values, each
 * slice is a view of the layer's weights (output channels come first in OHWI, OIHW and
 * [out, in] alike), so nothing is copied. Depthwise and grouped convolutions are not
 * sliced (their weights are small, and a slice of groups would need a slice of the input).
 */
export function sliceWeights(graph: Graph, maxSliceBytes: number): Graph {
  const tensors = new Map(graph.tensors);
  const nodes: Node[] = [];
  let sliced = false;
  for (const node of graph.nodes) {
    const plan = slicePlan(graph, node, maxSliceBytes);
    if (plan === undefined) {
      nodes.push(node);
      continue;
    }
    sliced = true;
    nodes.push(...slicedNodes(graph, node, plan, tensors));
  }
  return sliced ? { ...graph, nodes, tensors } : graph;
}

/** Output channels per slice (all but the last), or undefined when the layer stays whole. */
function slicePlan(graph: Graph, node: Node, maxSliceBytes: number): { readonly channels: number; readonly outChannels: number } | undefined {
  let k: number;
  let outChannels: number;
  if (node.op === 'FullyConnected') {
    [outChannels, k] = graph.tensors.get(node.inputs[1])?.shape ?? [0, 0];
  } else if (node.op === 'Conv' && node.weightLayout !== '1HWO') {
    const g = convGeometryOf(graph, node);
    const path = convPath(g);
    if (g.groups !== 1 || (path !== 'pointwise' && path !== 'im2col')) return undefined;
    k = g.kh * g.kw * g.cg;
    outChannels = g.o;
  } else {
    return undefined;
  }
  if (layerMemory(graph, node).weightBytes <= maxSliceBytes) return undefined;
  // Bytes of one panel of output channels: its packed weights and its padded bias.
  const panelBytes = (packedFloats(k, GEMM_PANEL) + paddedBiasFloats(GEMM_PANEL)) * 4;
  const panels = Math.max(1, Math.floor(maxSliceBytes / panelBytes));
  const channels = panels * GEMM_PANEL;
  return channels >= outChannels ? undefined : { channels, outChannels };
}

function slicedNodes(graph: Graph, node: Node, plan: { channels: number; outChannels: number }, tensors: Map<string, Tensor>): Node[] {
  const output = graph.tensors.get(node.outputs[0]) as Tensor;
  const channelAxis = node.op === 'FullyConnected' ? output.shape.length - 1 : spatialAxes(graph.layout).channels;
  const weights = graph.tensors.get(node.inputs[1]) as Tensor;
  const bias = node.inputs[2] ? graph.tensors.get(node.inputs[2]) : undefined;
  const perChannel = elementCount(weights.shape) / plan.outChannels;
  const taken = (name: string): never => {
    throw new GraphError(`weight slicing of node ${node.name} needs the name ${name}, which the graph already uses.`);
  };
  const fresh = (name: string): string => (tensors.has(name) ? taken(name) : name);
  const freshNode = (name: string): string => (graph.nodes.some((n) => n.name === name) ? taken(name) : name);
  const parts: Node[] = [];
  const outputs: string[] = [];
  for (let start = 0, s = 0; start < plan.outChannels; start += plan.channels, s++) {
    const count = Math.min(plan.channels, plan.outChannels - start);
    const suffix = `@slice${s}`;
    // Named after the node: two layers that share a weights tensor get slices of their own.
    const w = fresh(`${node.name}${suffix}:weights`);
    tensors.set(w, { ...weights, name: w, shape: [count, ...weights.shape.slice(1)], data: view(weights.data, start * perChannel, count * perChannel) });
    let b = '';
    if (bias !== undefined) {
      b = fresh(`${node.name}${suffix}:bias`);
      tensors.set(b, { ...bias, name: b, shape: [count], data: view(bias.data, start, count) });
    }
    const y = fresh(`${output.name}${suffix}`);
    tensors.set(y, { ...output, name: y, shape: output.shape.map((d, axis) => (axis === channelAxis ? count : d)) });
    outputs.push(y);
    const inputs = [node.inputs[0], w, ...(node.inputs.length > 2 ? [b] : [])];
    const part = node.op === 'Conv' ? { ...node, outChannels: count } : node.op === 'FullyConnected' ? { ...node, outFeatures: count } : node;
    parts.push({ ...part, name: freshNode(`${node.name}${suffix}`), inputs, outputs: [y] } as Node);
  }
  const concat: Node = { op: 'Concat', axis: channelAxis, activation: 'none', name: freshNode(`${node.name}@concat`), inputs: outputs, outputs: [node.outputs[0]] };
  return [...parts, concat];
}

/** Values [start, start + length) of a constant, as a view (undefined when it has none). */
function view(data: ArrayBufferView | undefined, start: number, length: number): ArrayBufferView | undefined {
  if (data === undefined) return undefined;
  if (!(data instanceof Float32Array)) throw new GraphError(`weight slicing reads float32 weights; got ${data.constructor.name}.`);
  return data.subarray(start, start + length);
}
