import { mulberry32 } from '../core/synthetic.ts';
import { elementCount, type Graph } from '../graph/ir.ts';
import { withSeededWeights } from '../graph/seeded-weights.ts';
import { BackendError } from './backend-error.ts';

/** The graph with the weights it runs with: seeded (zoo, default) or the file's own. */
export function weightedGraph(graph: Graph, weights: 'seeded' | 'file', seed: number): Graph {
  if (weights === 'seeded') return withSeededWeights(withoutWeights(graph), seed);
  for (const tensor of graph.tensors.values()) {
    if (tensor.constant && !(tensor.data instanceof Float32Array)) {
      throw new BackendError(`${graph.name}: constant ${tensor.name} has no float32 values (${tensor.data ? tensor.dtype : 'none'}); run with seeded weights.`);
    }
  }
  return graph;
}

/** The graph with no values on its constants (what crosses to a process that seeds its own). */
export function withoutWeights(graph: Graph): Graph {
  const bare = new Map([...graph.tensors].map(([name, t]) => [name, t.constant ? { ...t, data: undefined, dtype: 'float32' as const } : t]));
  return { ...graph, tensors: bare };
}

/** Seeded inputs in [0, 1) for every graph input. */
export function seededInputs(graph: Graph, seed: number): Map<string, Float32Array> {
  const random = mulberry32(seed ^ 0x5eed);
  return new Map(
    graph.inputs.map((name) => {
      const values = new Float32Array(elementCount(graph.tensors.get(name)?.shape ?? []));
      for (let k = 0; k < values.length; k++) values[k] = random();
      return [name, values];
    }),
  );
}

/** Are two output sets bit-identical (NaN patterns included)? */
export function bitIdentical(a: ReadonlyMap<string, Float32Array>, b: ReadonlyMap<string, Float32Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, x] of a) {
    const y = b.get(name);
    if (y === undefined || x.length !== y.length) return false;
    const xi = new Uint32Array(x.buffer, x.byteOffset, x.length);
    const yi = new Uint32Array(y.buffer, y.byteOffset, y.length);
    for (let k = 0; k < xi.length; k++) if (xi[k] !== yi[k]) return false;
  }
  return true;
}
