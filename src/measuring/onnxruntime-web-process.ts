/**
 * The process that times onnxruntime-web's WebAssembly build on one network (forked by
 * onnxruntime-web-peer.ts): a process of its own started with --no-liftoff, so that V8
 * compiles the WebAssembly with its optimizing tier before the first run, as it does ours
 * (measured-child.ts). Left to its baseline compiler, onnxruntime-web on BlazeFace fell from
 * 84 to 9 ms over ten runs as the background tier-up landed.
 */
import { BackendError } from '../backends/backend-error.ts';
import { serveMeasured } from './isolation/measured-child.ts';
import { type OrtLike, type PeerFeed, threadsWord, timeSession } from './peer-session.ts';

/** What the harness sends: the ONNX file, its inputs and how many runs to time. */
export interface WebPeerJob {
  readonly model: Uint8Array;
  readonly feeds: readonly PeerFeed[];
  readonly runs: { readonly warmup: number; readonly repetitions: number };
  /** Its threads (ort.env.wasm.numThreads). */
  readonly threads: number;
}

export interface WebPeerResult {
  readonly runtime: string;
  readonly samples: number[];
  readonly outputs: Record<string, Float32Array>;
}

async function timeWeb(job: WebPeerJob): Promise<WebPeerResult> {
  let ort: typeof import('onnxruntime-web');
  try {
    ort = await import('onnxruntime-web');
  } catch {
    throw new BackendError('onnxruntime-web is not installed; install it beside memplan-bench (npm install onnxruntime-web) to time its WebAssembly build as a peer.');
  }
  // Ours' threads (one by default), no proxy worker: the same footing as our executor and onnxruntime-node's peer.
  ort.env.wasm.numThreads = job.threads;
  ort.env.wasm.proxy = false;
  const options = { executionProviders: ['wasm'], executionMode: 'sequential', graphOptimizationLevel: 'all' };
  const { samples, outputs } = await timeSession(ort as unknown as OrtLike, job.model, job.feeds, job.runs, options);
  return { runtime: `onnxruntime-web ${ort.env.versions.web ?? ''} (WebAssembly, ${threadsWord(job.threads)})`.replace('  ', ' '), samples, outputs };
}

await serveMeasured('onnxruntime-web-process', (raw) => {
  const message = raw as { type?: string; job?: WebPeerJob };
  return message?.type === 'job' && message.job !== undefined ? timeWeb(message.job) : undefined;
});
