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
  const random = mulberry32(seed);
  const tensors = new Map(graph.tensors);
  const filled = new Set<string>();
  for (const node of graph.nodes) {
    for (const name of node.inputs) {
      const tensor = tensors.get(name);
      if (tensor === undefined || !tensor.constant || tensor.data !== undefined || filled.has(name)) continue;
      filled.add(name);
      const scale = isBias(graph, name) ? 0.01 : 0.1;
      const values = new Float32Array(elementCount(tensor.shape));
      for (let k = 0; k < values.length; k++) values[k] = (random() * 2 - 1) * scale;
      tensors.set(name, { ...tensor, dtype: 'float32', data: values } satisfies Tensor);
    }
  }
  return filled.size === 0 ? graph : { ...graph, tensors };
}
