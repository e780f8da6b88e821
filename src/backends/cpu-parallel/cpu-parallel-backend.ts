import { availableParallelism, cpus, totalmem } from 'node:os';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, OperatorSpan, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { executionMemory } from '../cpu/execution-memory.ts';
import { GraphIo } from '../cpu/graph-io.ts';
import { simdKernelsTitle } from '../cpu/kernels/wasm/engine.ts';
import { checkScratch } from '../cpu/node-kernels.ts';
import { writeWeights } from '../cpu/write-weights.ts';
import { stepIndices } from './parallel-steps.ts';
import { makeSpans } from './step-control.ts';
import { StepPool, type PoolRun } from './worker-pool.ts';
import type { Node } from '../../graph/ir.ts';

type PoolSpan = NonNullable<PoolRun['spans']>[number];

/**
 * The parallel CPU backend: the CPU executor's memory and kernels (cpu/execution-memory.ts,
 * cpu/node-kernels.ts: the same functions over the same bytes, so the same results bit for
 * bit), run by a pool of W worker threads, the operators of a step at once and a barrier
 * after each step (worker-pool.ts). The one memory is a shared WebAssembly memory that every
 * worker binds a SIMD engine of its own to: the weights once, the plan's arena with every
 * operator's scratch (operators of one step live at that step together, so the planner keeps
 * their scratch apart), the graph I/O. The pool's threads start once per process and worker
 * count and outlive the networks they run: what they cost is `memory.runtime`.
 *
 * The plan must be made for the schedule's records (lifetimes over steps): a plan made for
 * one operator at a time may put two tensors of one step in the same bytes, and the
 * workers would then overwrite each other. With one operator per step it runs the
 * sequential order on the pool, which measures the pool's own cost.
 */
export const cpuParallelBackend: Backend<'cpu-parallel'> = {
  kind: 'cpu-parallel',
  title: "CPU, a step's operators at once on W worker threads (--workers; default the number of cores)",
  traces: true,
  streamsWeights: false,
  parallelSteps: true,
  measuresRss: true,
  runsIn: 'process',
  reference: 'cpu',
  plansScratch: true,
  fusesActivations: true,
  runsNhwc: true,
  writesWeights: true,
  dryRun: { inferences: 1, network: 'kept' },

  async device(): Promise<DeviceInfo> {
    return {
      backend: 'cpu-parallel',
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      defaultWorkers: availableParallelism(),
      memoryBytes: totalmem(),
      runtime: `node ${process.version}, ${simdKernelsTitle()}`,
    };
  },

  /** float32 views need 4-byte offsets. */
  async requiredAlignment(): Promise<number> {
    return 4;
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph, problem, plan } = request;
    // Operators split over threads: a scratch band per thread (the plan's), and PARTS_PER_THREAD parts per thread, taken by whichever worker is free.
    const bands = request.threads ?? 1;
    const workers = request.workers ?? (request.threads === undefined ? availableParallelism() : bands);
    checkWorkers(workers);
    if (bands > 1 && workers > bands) throw new BackendError(`${workers} workers would each need a scratch band, and the plan holds ${bands} per node (plan it with threads ${workers}).`);
    const parts = bands === 1 ? 1 : bands * PARTS_PER_THREAD;
    const order = executionOrder(graph);
    // Node k's parts are kernels k * parts .. k * parts + parts - 1 (node-kernels.ts): a step runs every part of its nodes at once.
    const steps = stepIndices(graph, order, request.steps).map((step) => step.flatMap((k) => Array.from({ length: parts }, (_, part) => k * parts + part)));
    checkScratch(graph, order, problem, bands);
    const memory = executionMemory(graph, order, problem, plan, { workers });
    writeWeights(request, memory);
    const pool = await pools.acquire(workers);
    // Kernel scratch lives in each worker's module and only grows: what a network run before left (a dry run's) is not this one's, as in the CPU backend.
    const scratchBefore = pool.scratchBytes();
    const key = {};
    const network = { graph, memory: memory.wasm ?? (memory.buffer as SharedArrayBuffer), byteAt: memory.byteAt, steps, parts, bands, spans: makeSpans(order.length * parts) };
    // Worker k's temporary area: the main thread has the first.
    const load = (): Promise<number> => pool.load(key, network, (worker) => memory.temporary(worker + 1));
    const derived = await load();
    const io = new GraphIo(graph, memory.view);
    const { bytes } = memory;
    let last: PoolRun | undefined;
    let disposed = false;
    return {
      memory: () => ({ intermediates: bytes.arena, io: bytes.io + io.handedBytes, weights: bytes.weights + derived, scratch: pool.scratchBytes() - scratchBefore, runtime: pool.startRss }),
      parallel: {
        workers,
        stepSizes: steps.map((step) => step.length),
        poolRss: pool.startRss,
        lastRun: () => last,
      },
      async infer(inputs) {
        // The pool runs one network at a time: another's load (a dry run's) is undone first.
        await load();
        io.load(inputs);
        last = await pool.run();
        return io.handOut();
      },
      async trace(inputs) {
        await load();
        io.load(inputs);
        const run = await pool.run(true);
        return threadSpans(run.spans ?? [], order, parts);
      },
      dispose() {
        if (disposed) return;
        disposed = true;
        pools.release(workers);
      },
    };
  },
};

/**
 * The trace's slices: what each worker ran of each operator, one slice per run of parts of
 * one operator that a worker took one after the other (named by the parts it ran), rather
 * than one per part, PARTS_PER_THREAD times as many.
 */
function threadSpans(spans: readonly PoolSpan[], order: readonly Node[], parts: number): OperatorSpan[] {
  const byWorker = new Map<number, PoolSpan[]>();
  for (const span of spans) {
    const own = byWorker.get(span.worker);
    if (own === undefined) byWorker.set(span.worker, [span]);
    else own.push(span);
  }
  const slices: OperatorSpan[] = [];
  for (const [worker, own] of byWorker) {
    own.sort((a, b) => a.start - b.start);
    for (let k = 0; k < own.length; ) {
      const index = Math.floor(own[k].call / parts);
      let end = k + 1;
      while (end < own.length && Math.floor(own[end].call / parts) === index) end++;
      const node = order[index];
      const numbers = own.slice(k, end).map((span) => (span.call % parts) + 1);
      slices.push({
        node: parts === 1 ? node.name : `${node.name} (part${numbers.length > 1 ? 's' : ''} ${numbers.join(', ')} of ${parts})`,
        op: node.op,
        step: own[k].step,
        thread: `worker ${worker + 1}`,
        start: own[k].start,
        end: own[end - 1].end,
      });
      k = end;
    }
  }
  return slices.sort((a, b) => a.start - b.start);
}

/**
 * Parts per thread of a split operator: more parts than threads, so that a thread slowed by
 * anything else on its core (measured: one of two parts of a convolution at 1.5x the
 * other's time) takes fewer of them, instead of the whole operator waiting for it.
 */
const PARTS_PER_THREAD = 4;

/**
 * The pools of this process, one per worker count, kept while a prepared network holds one:
 * networks prepared one after the other (a dry run, then the run that is measured) share
 * the threads, which start once.
 */
const pools = {
  held: new Map<number, { pool: Promise<StepPool>; leases: number }>(),
  acquire(workers: number): Promise<StepPool> {
    let entry = this.held.get(workers);
    if (entry === undefined) {
      entry = { pool: StepPool.start(workers), leases: 0 };
      this.held.set(workers, entry);
      // A pool that failed to start is not kept for the next network.
      entry.pool.catch(() => this.held.delete(workers));
    }
    entry.leases++;
    return entry.pool;
  },
  release(workers: number): void {
    const entry = this.held.get(workers);
    if (entry === undefined || --entry.leases > 0) return;
    this.held.delete(workers);
    void entry.pool.then((pool) => pool.close());
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
