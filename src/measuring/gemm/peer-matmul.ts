import type { Graph, Tensor } from '../../graph/ir.ts';
import { summarizeLatency } from '../../backends/latency.ts';
import { runOnnxRuntime } from '../onnxruntime-peer.ts';
import { peerJob } from '../peer-session.ts';
import { element } from '../../backends/gemm/matrix-files.ts';

/** onnxruntime's MatMul on the same n, in memory, one thread: the yardstick of our kernel. */
export interface PeerMatMul {
  readonly runtime: string;
  readonly n: number;
  readonly medianMs: number;
  readonly gflops: number;
}

/** Times onnxruntime-node's MatMul of two n x n float32 matrices (single thread, median of `repetitions`). */
export async function peerMatMul(n: number, seed: number, repetitions = 3): Promise<PeerMatMul> {
  const tensor = (name: string): Tensor => ({ name, shape: [n, n], dtype: 'float32', constant: false });
  const graph: Graph = {
    name: `matmul-${n}`,
    layout: 'NCHW',
    tensors: new Map([tensor('A'), tensor('B'), tensor('C')].map((t) => [t.name, t])),
    nodes: [{ op: 'MatMul', name: 'matmul', inputs: ['A', 'B'], outputs: ['C'] }],
    inputs: ['A', 'B'],
    outputs: ['C'],
  };
  const values = (matrix: 'A' | 'B'): Float32Array => {
    const out = new Float32Array(n * n);
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) out[r * n + c] = element(seed, matrix, r, c);
    return out;
  };
  const job = await peerJob(
    graph,
    new Map([
      ['A', values('A')],
      ['B', values('B')],
    ]),
  );
  const run = await runOnnxRuntime(job, { warmup: 1, repetitions });
  const medianMs = summarizeLatency(run.samples, seed).median;
  return { runtime: run.runtime, n, medianMs, gflops: (2 * n ** 3) / medianMs / 1e6 };
}
