import { elementCount, GraphError, type Graph, type Node, type Tensor } from './ir.ts';
import { convGeometryOf, convPath, GEMM_PANEL, gemmWeightFloats, layerMemory, winogradWeightFloats } from './layer-memory.ts';
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
 * An embedding table (a Gather of a constant along axis 0) is sliced by rows into a chain of
 * Gathers instead (slicedGather below).
 */
export function sliceWeights(graph: Graph, maxSliceBytes: number): Graph {
  const tensors = new Map(graph.tensors);
  const nodes: Node[] = [];
  let sliced = false;
  for (const node of graph.nodes) {
    const rows = gatherRows(graph, node, maxSliceBytes);
    if (rows !== undefined) {
      sliced = true;
      nodes.push(...slicedGather(graph, node as GatherNode, rows, tensors));
      continue;
    }
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
  let outChannels: number;
  // Bytes of one panel of output channels: its packed weights (each Winograd position's) and its padded bias.
  let panelBytes: number;
  if (node.op === 'FullyConnected') {
    const [out, k] = graph.tensors.get(node.inputs[1])?.shape ?? [0, 0];
    outChannels = out;
    panelBytes = gemmWeightFloats(k, GEMM_PANEL) * 4;
  } else if (node.op === 'Conv' && node.weightLayout !== '1HWO') {
    const g = convGeometryOf(graph, node);
    const path = convPath(g);
    if (g.groups !== 1 || (path !== 'pointwise' && path !== 'im2col' && path !== 'winograd3x3')) return undefined;
    outChannels = g.o;
    panelBytes = (path === 'winograd3x3' ? winogradWeightFloats(g.c, GEMM_PANEL) : gemmWeightFloats(g.kh * g.kw * g.cg, GEMM_PANEL)) * 4;
  } else {
    return undefined;
  }
  if (layerMemory(graph, node).weightBytes <= maxSliceBytes) return undefined;
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

type GatherNode = Extract<Node, { op: 'Gather' }>;

/**
 * Rows per slice of an embedding table (a Gather along axis 0 of a constant, GPT-2's 147 MiB
 * token embedding) whose rows exceed `maxSliceBytes`, or undefined when it stays whole.
 */
function gatherRows(graph: Graph, node: Node, maxSliceBytes: number): number | undefined {
  if (node.op !== 'Gather' || node.rows !== undefined) return undefined;
  const table = graph.tensors.get(node.inputs[0]);
  if (table === undefined || !table.constant || table.shape.length === 0 || (node.axis !== 0 && node.axis !== -table.shape.length)) return undefined;
  if (layerMemory(graph, node).weightBytes <= maxSliceBytes) return undefined;
  const rowBytes = (elementCount(table.shape) / table.shape[0]) * 4;
  const rows = Math.max(1, Math.floor(maxSliceBytes / rowBytes));
  return rows >= table.shape[0] ? undefined : rows;
}

/**
 * A Gather of a table too large for a slice becomes a chain of Gathers, each holding a run of
 * the table's rows (`rows`: where its run starts in the whole table): each takes the result
 * of the one before (input 2) and writes the rows its indices pick from its run, the last one
 * into the layer's output. Every output row is written once, by the slice holding it, with
 * the same values: bit-identical, and only one slice of the table need be resident.
 */
function slicedGather(graph: Graph, node: GatherNode, rows: number, tensors: Map<string, Tensor>): Node[] {
  const table = graph.tensors.get(node.inputs[0]) as Tensor;
  const output = graph.tensors.get(node.outputs[0]) as Tensor;
  const total = table.shape[0];
  const perRow = elementCount(table.shape) / total;
  const taken = (name: string): never => {
    throw new GraphError(`weight slicing of node ${node.name} needs the name ${name}, which the graph already uses.`);
  };
  const fresh = (name: string): string => (tensors.has(name) ? taken(name) : name);
  const parts: Node[] = [];
  let previous: string | undefined;
  for (let start = 0, s = 0; start < total; start += rows, s++) {
    const count = Math.min(rows, total - start);
    const suffix = `@slice${s}`;
    const w = fresh(`${node.name}${suffix}:table`);
    tensors.set(w, { ...table, name: w, shape: [count, ...table.shape.slice(1)], data: view(table.data, start * perRow, count * perRow) });
    const last = start + count >= total;
    const y = last ? node.outputs[0] : fresh(`${output.name}${suffix}`);
    if (!last) tensors.set(y, { ...output, name: y });
    const name = `${node.name}${suffix}`;
    if (graph.nodes.some((n) => n.name === name)) taken(name);
    parts.push({ ...node, name, rows: { start, of: total }, inputs: [w, node.inputs[1], ...(previous === undefined ? [] : [previous])], outputs: [y] });
    previous = y;
  }
  return parts;
}

/** Values [start, start + length) of a constant, as a view (undefined when it has none). */
function view(data: ArrayBufferView | undefined, start: number, length: number): ArrayBufferView | undefined {
  if (data === undefined) return undefined;
  if (!(data instanceof Float32Array)) throw new GraphError(`weight slicing reads float32 weights; got ${data.constructor.name}.`);
  return data.subarray(start, start + length);
}
