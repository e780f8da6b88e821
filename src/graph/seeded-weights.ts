import { mulberry32 } from '../core/synthetic.ts';
import { elementCount, type Graph, type Tensor } from './ir.ts';

/** Bias inputs (scaled smaller than weights): input 2 of Conv, FullyConnected and Gemm. */
function isBias(graph: Graph, name: string): boolean {
  return graph.nodes.some((n) => (n.op === 'Conv' || n.op === 'FullyConnected' || n.op === 'Gemm') && n.inputs[2] === name);
}

/**
 * The graph with seeded float32 values for every constant that has none (a zoo network):
 * uniform in [-0.1, 0.1] for weights and [-0.01, 0.01] for biases, drawn in order of first
 * use. The ONNX writer and the executing backends both take their weights from here, so
 * an exported network and an executed one compute the same function.
 */
export function withSeededWeights(graph: Graph, seed: number): Graph {
  const tensors = new Map(graph.tensors);
  let filled = 0;
  streamSeededWeights(graph, seed, (name, values, at) => {
    let tensor = tensors.get(name) as Tensor;
    if (at === 0) {
      tensor = { ...tensor, dtype: 'float32', data: new Float32Array(elementCount(tensor.shape)) } satisfies Tensor;
      tensors.set(name, tensor);
      filled++;
    }
    (tensor.data as Float32Array).set(values, at);
  });
  return filled === 0 ? graph : { ...graph, tensors };
}

/** Values a seeded stream hands over at once: 256 KiB, whatever the tensor's size. */
const CHUNK = 65536;

/**
 * The values withSeededWeights gives, without holding them: each constant that has none, in
 * the same order, as chunks of at most CHUNK values (`sink(name, values, at)`: elements
 * `at` onwards; `values` is reused for the next chunk). An executor writes them where it
 * keeps its weights as they come, so that no whole copy of a layer's weights (VGG-19's
 * first FullyConnected: 392 MiB) ever exists beside its own.
 */
export function streamSeededWeights(graph: Graph, seed: number, sink: (name: string, values: Float32Array, at: number) => void): void {
  const random = mulberry32(seed);
  const filled = new Set<string>();
  const chunk = new Float32Array(CHUNK);
  for (const node of graph.nodes) {
    for (const name of node.inputs) {
      const tensor = graph.tensors.get(name);
      if (tensor === undefined || !tensor.constant || tensor.data !== undefined || filled.has(name)) continue;
      filled.add(name);
      const scale = isBias(graph, name) ? 0.01 : 0.1;
      const length = elementCount(tensor.shape);
      if (length === 0) sink(name, chunk.subarray(0, 0), 0);
      for (let at = 0; at < length; at += CHUNK) {
        const count = Math.min(CHUNK, length - at);
        for (let k = 0; k < count; k++) chunk[k] = (random() * 2 - 1) * scale;
        sink(name, chunk.subarray(0, count), at);
      }
    }
  }
}
