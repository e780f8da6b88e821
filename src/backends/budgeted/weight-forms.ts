import type { Graph, Node } from '../../graph/ir.ts';
import { layerMemory } from '../../graph/layer-memory.ts';
import { BackendError } from '../backend-error.ts';
import { nodeWeights } from '../cpu/weight-placement.ts';

/**
 * A layer's weights in the form the budgeted executor's kernels read them from its one
 * buffer (graph/layer-memory.ts says the form and its size; cpu/weight-placement.ts where
 * each value goes): what the weights file holds for the layer, so that loading is one read
 * with nothing derived afterwards (FlexNN's weight pre-transformation). Returns exactly
 * `layerMemory(graph, node).weightBytes / 4` values; the graph's constants must carry their
 * values.
 */
export function weightForm(graph: Graph, node: Node): Float32Array {
  const bytes = layerMemory(graph, node).weightBytes;
  const { floats, placements } = nodeWeights(graph, node);
  if (floats * 4 !== bytes) throw new BackendError(`node ${node.name}: its weights take ${floats * 4} bytes in the executor's form, but its records hold ${bytes}.`);
  const out = new Float32Array(floats);
  for (const placement of placements) {
    const data = graph.tensors.get(placement.constant)?.data;
    if (!(data instanceof Float32Array)) throw new BackendError(`node ${node.name}: constant ${placement.constant} has no float32 values to write to the weights file.`);
    placement.write(data, 0, out);
  }
  return out;
}
