import { mulberry32 } from '../core/synthetic.ts';
import { elementCount, type Graph, type Tensor } from '../graph/ir.ts';
import { withSeededWeights } from '../graph/seeded-weights.ts';
import { BackendError } from './backend-error.ts';

/** The graph with the weights it runs with: seeded (zoo, default) or the file's own. */
export function weightedGraph(graph: Graph, weights: 'seeded' | 'file', seed: number): Graph {
  if (weights === 'seeded') return withSeededWeights(withoutWeights(graph), seed);
  const quantized = [...graph.tensors.values()].find((t) => t.constant && (t.dtype === 'int8' || t.dtype === 'uint8'));
  if (quantized !== undefined) {
    throw new BackendError(
      `${graph.name}: the model is quantized (constant ${quantized.name} holds ${quantized.dtype} values), and the executors run float32 without dequantizing: run with seeded weights.`,
    );
  }
  const tensors = new Map([...graph.tensors].map(([name, t]) => [name, t.constant ? { ...t, data: float32Values(graph.name, t) } : t]));
  return { ...graph, tensors };
}

/**
 * A constant's values as float32, what every kernel reads. A float model's integer
 * constants (paddings, sizes, axes, shapes: read into the ops when the file was read) are
 * converted where float32 holds them exactly; anything else is one sentence.
 */
function float32Values(model: string, tensor: Tensor): Float32Array {
  const { data } = tensor;
  if (data instanceof Float32Array) return data;
  const refuse = (why: string): never => {
    throw new BackendError(`${model}: constant ${tensor.name} ${why}; run with seeded weights.`);
  };
  if (data === undefined) return refuse('has no values in the file');
  if (data instanceof Float64Array) return Float32Array.from(data);
  if (data instanceof Int16Array || data instanceof Int32Array || data instanceof Uint8Array || data instanceof BigInt64Array) {
    const values = Array.from(data as ArrayLike<number | bigint>, Number);
    if (values.some((v) => Math.abs(v) > 2 ** 24)) refuse(`holds ${tensor.dtype} values beyond 2^24, which float32 does not hold exactly`);
    return Float32Array.from(values);
  }
  return refuse(`holds ${tensor.dtype} values, which the float32 executors do not read`);
}

/** The graph with no values on its constants (what crosses to a process that seeds its own). */
export function withoutWeights(graph: Graph): Graph {
  const bare = new Map([...graph.tensors].map(([name, t]) => [name, t.constant ? { ...t, data: undefined, dtype: 'float32' as const } : t]));
  return { ...graph, tensors: bare };
}

/**
 * Seeded inputs for every graph input: values in [0, 1), except an input a Gather reads as
 * its indices (token ids), which gets whole numbers in [0, rows of the smallest table it
 * indexes), from the same draws.
 */
export function seededInputs(graph: Graph, seed: number): Map<string, Float32Array> {
  const random = mulberry32(seed ^ 0x5eed);
  return new Map(
    graph.inputs.map((name) => {
      const values = new Float32Array(elementCount(graph.tensors.get(name)?.shape ?? []));
      const rows = indexRange(graph, name);
      for (let k = 0; k < values.length; k++) values[k] = rows === undefined ? random() : Math.floor(random() * rows);
      return [name, values];
    }),
  );
}

/** Rows of the smallest table a Gather indexes with `name`, or undefined when no Gather reads it as indices. */
function indexRange(graph: Graph, name: string): number | undefined {
  let rows: number | undefined;
  for (const node of graph.nodes) {
    if (node.op !== 'Gather' || node.inputs[1] !== name) continue;
    const shape = graph.tensors.get(node.inputs[0])?.shape ?? [];
    const axis = node.axis < 0 ? node.axis + shape.length : node.axis;
    const length = node.rows?.of ?? shape[axis] ?? 0;
    rows = Math.min(rows ?? length, length);
  }
  return rows;
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
