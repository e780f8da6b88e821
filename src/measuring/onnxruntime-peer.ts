import type { Graph } from '../graph/ir.ts';
import { writeOnnx } from '../io/onnx/write-onnx.ts';
import { BackendError } from '../backends/backend-error.ts';
import { graphOutputs, type OrtLike, type PeerRun, peerFeeds, timeSession } from './peer-session.ts';

type Ort = typeof import('onnxruntime-node');

async function loadOrt(): Promise<Ort> {
  try {
    return await import('onnxruntime-node');
  } catch {
    throw new BackendError('onnxruntime-node is not installed; install it beside memplan-bench (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node) to time the peer.');
  }
}

/**
 * Runs the graph (with its weights) in onnxruntime-node, single-threaded, sequential, all
 * graph optimizations on: the same ONNX file `memplan export` writes, the same inputs.
 */
export async function runOnnxRuntime(graph: Graph, inputs: ReadonlyMap<string, Float32Array>, runs: { warmup: number; repetitions: number }): Promise<PeerRun> {
  const ort = await loadOrt();
  const model = writeOnnx(graph, { weights: 'random' });
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
  const { samples, outputs } = await timeSession(ort as unknown as OrtLike, model, peerFeeds(graph, inputs), runs, options);
  return { runtime: `onnxruntime-node ${ort.env.versions.common ?? ''}`.trim(), samples, outputs: graphOutputs(graph, outputs) };
}
