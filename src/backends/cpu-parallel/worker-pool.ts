import { receiveMessageOnPort, MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { BackendError } from '../backend-error.ts';
import { workerModule } from '../child-module.ts';
import { epochMs } from '../../core/clock.ts';
import { LOAD, lastStep, makeStepBlock, QUIT, setTracing, startSteps, stepFailed, waitSteps, type Spans, type StepBlock } from './step-control.ts';
import type { Graph } from '../../graph/ir.ts';
import type { NetworkSetup, WorkerSetup } from './step-worker.ts';

/** One inference's step timings. */
export interface PoolRun {
  /** Wall milliseconds of each step, from the end of the one before (the first: from the run's start) to the last worker leaving it. */
  readonly stepMs: number[];
  /** Milliseconds each worker spent inside kernels during the inference. */
  readonly busyMs: number[];
  /** A traced inference: every kernel call's step, worker and times (shared clock, ms). */
  readonly spans?: { readonly call: number; readonly step: number; readonly worker: number; readonly start: number; readonly end: number }[];
}

/**
 * W worker threads (step-worker.ts) that run the operators of a step at once, over the
 * execution's one shared memory, with a barrier after each step (step-control.ts). The main
 * thread only starts an inference's steps and waits: it blocks in Atomics.wait while the
 * workers compute and go from step to step themselves.
 * The threads start once, holding no network; `load` hands them one (a pool outlives the
 * networks it runs, so that its threads are started and paid for once).
 */
/** How long the main thread blocks on a step before it lets its event loop turn, to hear of a worker that died. */
const BLOCK_MS = 20;

export class StepPool {
  /** Why a worker is gone, once one is: a step then fails instead of waiting for it forever. */
  private gone: string | undefined;
  /** The network the workers hold (the last one loaded), by what it was loaded from. */
  private network: { readonly key: object; readonly steps: readonly (readonly number[])[]; readonly spans: Spans; readonly stepEnds: Float64Array } | undefined;
  /** The graph every worker holds a copy of, once a load succeeded. */
  private graph: NetworkSetup['graph'];

  private constructor(
    private readonly threads: readonly Worker[],
    private readonly networkPorts: readonly MessagePort[],
    private readonly errorPorts: readonly MessagePort[],
    private readonly block: StepBlock,
    /** Resident bytes the process grew by while the threads started: the pool's fixed cost. */
    readonly startRss: number,
  ) {
    threads.forEach((thread, index) => {
      thread.on('error', (error) => (this.gone ??= `worker ${index} of the cpu-parallel pool failed: ${error.message}`));
      thread.on('exit', (code) => (this.gone ??= `worker ${index} of the cpu-parallel pool exited with code ${code}`));
    });
  }

  get workers(): number {
    return this.threads.length;
  }

  /** Starts `workers` threads, holding no network yet, and waits until each is ready. */
  static async start(workers: number): Promise<StepPool> {
    const before = process.memoryUsage.rss();
    const block = makeStepBlock(workers);
    const module = workerModule(import.meta.url, './step-worker');
    const threads: Worker[] = [];
    const networkPorts: MessagePort[] = [];
    const errorPorts: MessagePort[] = [];
    try {
      await Promise.all(
        Array.from({ length: workers }, (_, index) => {
          const networks = new MessageChannel();
          const errors = new MessageChannel();
          networkPorts.push(networks.port1);
          errorPorts.push(errors.port1);
          const setup: WorkerSetup = { index, workers, block, networks: networks.port2, errors: errors.port2 };
          // A young generation of 1 MiB, as the measured process's own (measured-child.ts): a worker allocates only while it builds a network's kernels.
          const thread = new Worker(module.entry, {
            eval: module.eval,
            env: module.env,
            workerData: setup,
            transferList: [networks.port2, errors.port2],
            resourceLimits: { maxYoungGenerationSizeMb: 2 },
          });
          threads.push(thread);
          return new Promise<void>((resolve, reject) => {
            thread.once('message', () => resolve());
            thread.once('error', (error) => reject(new Error(`worker ${index} of the cpu-parallel pool failed to start: ${error.message}`)));
            thread.once('exit', (code) => reject(new Error(`worker ${index} of the cpu-parallel pool exited with code ${code} before it was ready.`)));
          });
        }),
      );
    } catch (error) {
      await Promise.all(threads.map((thread) => thread.terminate()));
      throw error;
    }
    for (const thread of threads) {
      thread.removeAllListeners();
      // A network that is never disposed does not keep the process alive.
      thread.unref();
    }
    return new StepPool(threads, networkPorts, errorPorts, block, Math.max(0, process.memoryUsage.rss() - before));
  }

  /**
   * Hands every worker a network (unless it holds this one already: `key` says which): each
   * binds its own engine to the shared memory and builds the kernels, as one step of the
   * barrier. The graph crosses only when the workers hold another: a network prepared again
   * (after its dry run) costs the workers its kernels, not a second copy of the graph. Resolves with the bytes of weights the workers derived in forms of their own.
   */
  async load(key: object, network: Omit<NetworkSetup, 'temporary' | 'graph' | 'stepEnds'> & { readonly graph: Graph }, temporary: (worker: number) => number): Promise<number> {
    if (this.network?.key !== key) {
      // The graph crosses only when it is not the one the workers hold (each keeps its copy).
      const { graph, ...rest } = network;
      const sent = this.graph === graph ? rest : network;
      // When each step ended, noted by the worker that ended it (the workers go from step to step without the main thread).
      const stepEnds = new Float64Array(new SharedArrayBuffer(Math.max(1, network.steps.length) * 8));
      this.networkPorts.forEach((port, worker) => port.postMessage({ ...sent, temporary: temporary(worker), stepEnds } satisfies NetworkSetup));
      this.network = undefined;
      this.graph = undefined;
      await this.steps(LOAD, LOAD + 1, 'loading the network');
      this.network = { key, steps: network.steps, spans: network.spans, stepEnds };
      this.graph = graph;
    }
    return this.block.derivedBytes.reduce((sum, bytes) => sum + bytes, 0);
  }

  /**
   * Runs every step in order, the workers going from one to the next themselves; throws the
   * failed operators' messages after a step that had one. The main thread blocks while the
   * steps run (a wake-up, not an event-loop turn, ends them), but turns its event loop every
   * BLOCK_MS, so that a worker that died ends the inference with an error rather than a wait
   * that never ends.
   */
  async run(traced = false): Promise<PoolRun> {
    const network = this.network;
    if (network === undefined) throw new BackendError('the cpu-parallel pool holds no network to run.');
    setTracing(this.block, traced);
    const busyBefore = [...this.block.busyMs];
    const count = network.steps.length;
    const started = epochMs();
    if (count > 0) await this.steps(0, count);
    // Each step from the end of the one before (the first from the start of the run).
    const stepMs = Array.from({ length: count }, (_, step) => network.stepEnds[step] - (step === 0 ? started : network.stepEnds[step - 1]));
    const busyMs = [...this.block.busyMs].map((ms, k) => ms - busyBefore[k]);
    if (!traced) return { stepMs, busyMs };
    const { start, end, worker } = network.spans;
    const spans = network.steps.flatMap((calls, step) => calls.map((call) => ({ call, step, worker: worker[call], start: start[call], end: end[call] })));
    return { stepMs, busyMs, spans };
  }

  /**
   * The steps [first, end) on every worker (an inference's operator steps, or LOAD alone),
   * each after the one before; `what` names them in an error (default: the step running).
   */
  private async steps(first: number, end: number, what?: string): Promise<void> {
    if (this.gone !== undefined) throw new BackendError(`${this.gone}.`);
    startSteps(this.block, first, end);
    while (!waitSteps(this.block, BLOCK_MS)) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.gone !== undefined) throw new BackendError(`${this.gone} during ${what ?? `step ${lastStep(this.block)}`}.`);
    }
    if (stepFailed(this.block)) throw new BackendError(this.failures().join('; '));
  }

  /** Kernel scratch of every worker (bytes; each only grows). */
  scratchBytes(): number {
    return this.block.scratchBytes.reduce((sum, bytes) => sum + bytes, 0);
  }

  async close(): Promise<void> {
    this.gone ??= 'the cpu-parallel pool is closed';
    startSteps(this.block, QUIT, QUIT + 1);
    await Promise.all(this.threads.map((thread) => thread.terminate()));
    for (const port of [...this.errorPorts, ...this.networkPorts]) port.close();
  }

  private failures(): string[] {
    const messages: string[] = [];
    for (const port of this.errorPorts) {
      for (let received = receiveMessageOnPort(port); received !== undefined; received = receiveMessageOnPort(port)) messages.push(String(received.message));
    }
    return messages.length > 0 ? messages : ['an operator failed on a worker of the cpu-parallel pool.'];
  }
}
