import { receiveMessageOnPort, MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { BackendError } from '../backend-error.ts';
import { workerModule } from '../child-module.ts';
import type { KernelCall } from '../cpu/kernel.ts';
import { makeStepBlock, QUIT, setTracing, startStep, stepFailed, waitStep, type StepBlock } from './step-control.ts';
import type { WorkerSetup } from './step-worker.ts';

/** One inference's step timings. */
export interface PoolRun {
  /** Wall milliseconds of each step, from its start to the last worker leaving it. */
  readonly stepMs: number[];
  /** Milliseconds each worker spent inside kernels during the inference. */
  readonly busyMs: number[];
  /** A traced inference: every kernel call's step, worker and times (shared clock, ms). */
  readonly spans?: { readonly call: number; readonly step: number; readonly worker: number; readonly start: number; readonly end: number }[];
}

/**
 * W worker threads (step-worker.ts) that run the kernel calls of a step at once, over
 * shared memory, with a barrier after each step (step-control.ts). The main thread only
 * starts steps and waits: it blocks in Atomics.wait while the workers compute.
 */
/** How long the main thread blocks on a step before it lets its event loop turn, to hear of a worker that died. */
const BLOCK_MS = 20;

export class StepPool {
  /** Why a worker is gone, once one is: a step then fails instead of waiting for it forever. */
  private gone: string | undefined;

  private constructor(
    private readonly threads: readonly Worker[],
    private readonly errorPorts: readonly MessagePort[],
    private readonly block: StepBlock,
    private readonly steps: readonly (readonly number[])[],
    /** Resident bytes the process grew by while the threads started. */
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

  /** Starts `workers` threads on the calls (views into SharedArrayBuffers) and waits until each is ready. */
  static async start(calls: readonly KernelCall[], steps: readonly (readonly number[])[], workers: number): Promise<StepPool> {
    const before = process.memoryUsage.rss();
    const block = makeStepBlock(workers, calls.length);
    const module = workerModule(import.meta.url, './step-worker');
    const threads: Worker[] = [];
    const ports: MessagePort[] = [];
    try {
      await Promise.all(
        Array.from({ length: workers }, (_, index) => {
          const { port1, port2 } = new MessageChannel();
          ports.push(port1);
          const setup: WorkerSetup = { index, workers, calls, steps, block, errors: port2 };
          const thread = new Worker(module.entry, { eval: module.eval, env: module.env, workerData: setup, transferList: [port2] });
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
    return new StepPool(threads, ports, block, steps, Math.max(0, process.memoryUsage.rss() - before));
  }

  /**
   * Runs every step in order; throws the failed operators' messages after a step that had
   * one. The main thread blocks while a step runs (a wake-up, not an event-loop turn, ends
   * it), but turns its event loop every BLOCK_MS, so that a worker that died ends the
   * inference with an error rather than a wait that never ends.
   */
  async run(traced = false): Promise<PoolRun> {
    setTracing(this.block, traced);
    const busyBefore = [...this.block.busyMs];
    const stepMs: number[] = [];
    const workers = this.threads.length;
    for (let step = 0; step < this.steps.length; step++) {
      if (this.gone !== undefined) throw new BackendError(`${this.gone}.`);
      const started = performance.now();
      startStep(this.block, step);
      while (!waitStep(this.block, workers, BLOCK_MS)) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.gone !== undefined) throw new BackendError(`${this.gone} during step ${step}.`);
      }
      stepMs.push(performance.now() - started);
      if (stepFailed(this.block)) throw new BackendError(this.failures().join('; '));
    }
    const busyMs = [...this.block.busyMs].map((ms, k) => ms - busyBefore[k]);
    if (!traced) return { stepMs, busyMs };
    const { start, end, worker } = this.block.spans;
    const spans = this.steps.flatMap((calls, step) => calls.map((call) => ({ call, step, worker: worker[call], start: start[call], end: end[call] })));
    return { stepMs, busyMs, spans };
  }

  /** Kernel scratch of every worker (bytes; each only grows). */
  scratchBytes(): number {
    return this.block.scratchBytes.reduce((sum, bytes) => sum + bytes, 0);
  }

  async close(): Promise<void> {
    this.gone ??= 'the cpu-parallel pool is closed';
    startStep(this.block, QUIT);
    await Promise.all(this.threads.map((thread) => thread.terminate()));
    for (const port of this.errorPorts) port.close();
  }

  private failures(): string[] {
    const messages: string[] = [];
    for (const port of this.errorPorts) {
      for (let received = receiveMessageOnPort(port); received !== undefined; received = receiveMessageOnPort(port)) messages.push(String(received.message));
    }
    return messages.length > 0 ? messages : ['an operator failed on a worker of the cpu-parallel pool.'];
  }
}
