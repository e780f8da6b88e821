import { BackendError } from '../backends/backend-error.ts';
import { graphOutputs, type OrtLike, type PeerJob, type PeerRun, threadsWord, timeSession } from './peer-session.ts';

type Ort = typeof import('onnxruntime-node');

async function loadOrt(): Promise<Ort> {
  try {
    return await import('onnxruntime-node');
  } catch {
    throw new BackendError('onnxruntime-node is not installed; install it beside memplan-bench (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node) to time the peer.');
  }
}

/**
 * Runs the graph (with its weights) in onnxruntime-node, on the job's intra-op threads (one
 * by default), sequential, all graph optimizations on: the same ONNX file `memplan export`
 * writes, the same inputs.
 */
export async function runOnnxRuntime(job: PeerJob, runs: { warmup: number; repetitions: number }): Promise<PeerRun> {
  const ort = await loadOrt();
  const options = { intraOpNumThreads: job.threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
  const { samples, outputs } = await timeSession(ort as unknown as OrtLike, job.model, job.feeds, runs, options);
  const version = `onnxruntime-node ${ort.env.versions.common ?? ''}`.trim();
  return { runtime: job.threads === 1 ? version : `${version} (${threadsWord(job.threads)})`, samples, outputs: graphOutputs(job.graph, outputs) };
}
