import { availableParallelism, cpus, totalmem } from 'node:os';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { resolveKernelCalls } from '../cpu/kernel-calls.ts';
import { GraphIo } from '../cpu/graph-io.ts';
import { kernelScratchBytes } from '../cpu/kernels/index.ts';
import { bindMemory } from '../cpu/memory.ts';
import { stepIndices } from './parallel-steps.ts';
import { SharedWeights } from './shared-weights.ts';
import { StepPool, type PoolRun } from './worker-pool.ts';

/**
 * The parallel CPU backend: the CPU backend's kernels (the same functions, so the same
 * results bit for bit), run by a pool of W worker threads, the operators of a step at once
 * and a barrier after each step (worker-pool.ts). Everything the workers touch is shared
 * memory, allocated once: the plan's arena (offsets) or one buffer per object (shared
 * objects), the graph's inputs and outputs, and the weights, repacked once at prepare and
 * moved into SharedArrayBuffers that every worker reads (shared-weights.ts). Each
 * worker has its own kernel scratch and SIMD engine memory, counted as scratch.
 *
 * The plan must be made for the schedule's records (lifetimes over steps): a plan made for
 * one operator at a time may put two tensors of one step in the same bytes, and the
 * workers would then overwrite each other. With one operator per step it runs the
 * sequential order on the pool, which measures the pool's own cost.
 */
export const cpuParallelBackend: Backend = {
  kind: 'cpu-parallel',
  title: "CPU, a step's operators at once on W worker threads (--workers; default the number of cores)",
  reference: 'cpu',

  async device(): Promise<DeviceInfo> {
    return { backend: 'cpu-parallel', cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, defaultWorkers: availableParallelism(), memoryBytes: totalmem(), runtime: `node ${process.version}` };
  },

  /** float32 views need 4-byte offsets. */
  async requiredAlignment(): Promise<number> {
    return 4;
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph } = request;
    const workers = request.workers ?? availableParallelism();
    checkWorkers(workers);
    const order = executionOrder(graph);
    const steps = stepIndices(graph, order, request.steps);
    const memory = bindMemory(request, (bytes) => new SharedArrayBuffer(bytes));
    const { views } = memory;
    const view = (name: string): Float32Array => views.get(name) as Float32Array;
    const shared = new SharedWeights((call, k) => graph.tensors.get(call.node.inputs[k])?.constant === true);
    const { calls } = resolveKernelCalls(request, order, views, (call) => shared.share(call));
    // The shared copies are the ones the workers read: the graph's raw values may go.
    for (const [name, tensor] of graph.tensors) if (tensor.constant) request.release?.(name);
    const pool = await StepPool.start(
      calls.map((c) => c.call),
      steps,
      workers,
    );
    const io = new GraphIo(graph, view);
    let last: PoolRun | undefined;
    return {
      memory: () => ({ intermediates: memory.intermediates, io: memory.io + io.handedBytes, weights: shared.bytes, scratch: kernelScratchBytes() + pool.scratchBytes() }),
      parallel: {
        workers,
        stepSizes: steps.map((step) => step.length),
        poolRss: pool.startRss,
        lastRun: () => last,
      },
      async infer(inputs) {
        io.load(inputs);
        last = await pool.run();
        return io.handOut();
      },
      async trace(inputs) {
        io.load(inputs);
        const run = await pool.run(true);
        const spans = run.spans ?? [];
        return spans.map((span) => ({ node: calls[span.call].call.node.name, op: calls[span.call].call.node.op, step: span.step, thread: `worker ${span.worker + 1}`, start: span.start, end: span.end }));
      },
      dispose() {
        void pool.close();
      },
    };
  },
};

/**
 * At most one worker per core: more threads than cores would time the operating system's
 * scheduler, not the plan, and each thread costs megabytes (100,000 asked for once grew the
 * measured process to 476 threads and 4 GB before it failed).
 */
export function maxWorkers(): number {
  return availableParallelism();
}

export function checkWorkers(workers: number): void {
  if (!Number.isSafeInteger(workers) || workers < 1) throw new BackendError(`the cpu-parallel backend needs a whole number of workers >= 1, got ${workers}.`);
  if (workers > maxWorkers()) throw new BackendError(`the cpu-parallel backend runs at most one worker per core: ${workers} workers asked for, this machine has ${maxWorkers()}.`);
}
