import { elementCount, type Graph } from '../graph/ir.ts';
import { writeOnnx } from '../io/onnx/write-onnx.ts';
import { BackendError } from '../backends/backend-error.ts';

/** onnxruntime-node's run of the same network: its outputs and its latency samples. */
export interface PeerRun {
  readonly runtime: string;
  readonly samples: readonly number[];
  /** Graph outputs in the graph's own layout (NHWC outputs transposed back). */
  readonly outputs: Map<string, Float32Array>;
}

type Ort = typeof import('onnxruntime-node');

async function loadOrt(): Promise<Ort> {
  try {
    return await import('onnxruntime-node');
  } catch {
    throw new BackendError('onnxruntime-node is not installed; install it beside memplan-bench (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node) to time the peer.');
  }
}

/** NHWC <-> NCHW for one 4-D tensor's values. */
function transpose4(values: Float32Array, [n, a, b, c]: readonly number[], toNchw: boolean): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < n; i++)
    for (let y = 0; y < a; y++)
      for (let x = 0; x < b; x++)
        for (let ch = 0; ch < c; ch++) {
          const nhwc = ((i * a + y) * b + x) * c + ch;
          const nchw = ((i * c + ch) * a + y) * b + x;
          if (toNchw) out[nchw] = values[nhwc];
          else out[nhwc] = values[nchw];
        }
  return out;
}

/**
 * Runs the graph (with its weights) in onnxruntime-node, single-threaded, sequential, all
 * graph optimizations on: the same ONNX file `memplan export` writes, the same inputs.
 */
export async function runOnnxRuntime(graph: Graph, inputs: ReadonlyMap<string, Float32Array>, runs: { warmup: number; repetitions: number }): Promise<PeerRun> {
  const ort = await loadOrt();
  const bytes = writeOnnx(graph, { weights: 'random' });
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const nhwc = graph.layout === 'NHWC';
  const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
  for (const name of graph.inputs) {
    const shape = graph.tensors.get(name)?.shape ?? [];
    const values = inputs.get(name) ?? new Float32Array(elementCount(shape));
    const four = nhwc && shape.length === 4;
    // Token ids are whole numbers in float32 here; the ONNX file declares them int32 or int64 (write-onnx.ts).
    const dtype = graph.tensors.get(name)?.dtype;
    if (graph.nodes.some((node) => node.op === 'Gather' && node.inputs[1] === name) && (dtype === 'int32' || dtype === 'int64')) {
      feeds[name] =
        dtype === 'int32'
          ? new ort.Tensor('int32', Int32Array.from(values), [...shape])
          : new ort.Tensor(
              'int64',
              BigInt64Array.from(values, (v) => BigInt(v)),
              [...shape],
            );
      continue;
    }
    feeds[name] = new ort.Tensor('float32', four ? transpose4(values, shape, true) : values, four ? [shape[0], shape[3], shape[1], shape[2]] : [...shape]);
  }
  let result = await session.run(feeds);
  for (let k = 0; k < runs.warmup; k++) result = await session.run(feeds);
  const samples: number[] = [];
  for (let k = 0; k < runs.repetitions; k++) {
    const started = performance.now();
    result = await session.run(feeds);
    samples.push(performance.now() - started);
  }
  const outputs = new Map<string, Float32Array>();
  for (const name of graph.outputs) {
    const shape = graph.tensors.get(name)?.shape ?? [];
    const values = result[name].data as Float32Array;
    outputs.set(name, nhwc && shape.length === 4 ? transpose4(values, shape, false) : Float32Array.from(values));
  }
  await session.release();
  return { runtime: `onnxruntime-node ${ort.env.versions.common ?? ''}`.trim(), samples, outputs };
}

/** Largest absolute difference over the largest magnitude of the reference, over all outputs. */
export function relativeError(ours: ReadonlyMap<string, Float32Array>, reference: ReadonlyMap<string, Float32Array>): number {
  let worst = 0;
  for (const [name, expected] of reference) {
    const actual = ours.get(name);
    if (actual === undefined || actual.length !== expected.length) return Infinity;
    let scale = 0;
    let difference = 0;
    for (let k = 0; k < expected.length; k++) {
      scale = Math.max(scale, Math.abs(expected[k]));
      difference = Math.max(difference, Math.abs(actual[k] - expected[k]));
    }
    worst = Math.max(worst, difference / Math.max(scale, Number.MIN_VALUE));
  }
  return worst;
}
