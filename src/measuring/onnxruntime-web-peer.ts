import { forkMeasured } from './isolation/measured-child.ts';
import type { WebPeerResult } from './onnxruntime-web-process.ts';
import { graphOutputs, type PeerJob, type PeerRun } from './peer-session.ts';

/**
 * Runs the graph in onnxruntime-web's WebAssembly build (SIMD, the job's threads), in a process of
 * its own started with --no-liftoff (onnxruntime-web-process.ts): the same ONNX file and
 * inputs as onnxruntime-node's peer, timed after V8's optimizing tier has compiled it.
 */
export async function runOnnxRuntimeWeb(job: PeerJob, runs: { warmup: number; repetitions: number }): Promise<PeerRun> {
  const sent = { model: job.model, feeds: job.feeds, runs, threads: job.threads };
  const result = await forkMeasured<WebPeerResult>(import.meta.url, './onnxruntime-web-process', [], (post) => post({ type: 'job', job: sent }));
  return { runtime: result.runtime, samples: result.samples, outputs: graphOutputs(job.graph, result.outputs) };
}
