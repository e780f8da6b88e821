/**
 * A worker thread of the cpu-parallel pool (worker-pool.ts starts W of them). It has its
 * own instances of the kernel modules (its own scratch buffers and WebAssembly SIMD
 * engine) and runs kernel calls over the shared memory it was handed: the plan's arena or
 * objects, the graph's inputs and outputs, and the weights, all SharedArrayBuffers. It
 * says `ready`, then serves steps until told to quit (step-control.ts); an operator that
 * throws is reported on its error port, and the step still ends.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { epochMs } from '../../core/clock.ts';
import type { KernelCall } from '../cpu/kernel.ts';
import { KERNELS, kernelScratchBytes } from '../cpu/kernels/index.ts';
import { awaitStep, leaveStep, markFailed, QUIT, takeOperator, tracing, type StepBlock } from './step-control.ts';

/** What a worker is started with (its workerData). */
export interface WorkerSetup {
  /** This worker's slot in the block's per-worker arrays. */
  readonly index: number;
  readonly workers: number;
  readonly calls: readonly KernelCall[];
  /** Indices into `calls`, per step. */
  readonly steps: readonly (readonly number[])[];
  readonly block: StepBlock;
  /** Where the message of a failed operator goes (the main thread reads it synchronously). */
  readonly errors: MessagePort;
}

function serve(setup: WorkerSetup): void {
  const { index, workers, calls, steps, block, errors } = setup;
  const kernels = calls.map((call) => KERNELS[call.node.op]!);
  parentPort?.postMessage('ready');
  let seen = 0;
  for (;;) {
    const { generation, step } = awaitStep(block, seen);
    seen = generation;
    if (step === QUIT) break;
    const operators = steps[step];
    const traced = tracing(block);
    for (let k = takeOperator(block, operators.length); k >= 0; k = takeOperator(block, operators.length)) {
      const at = operators[k];
      if (traced) {
        block.spans.start[at] = epochMs();
        block.spans.worker[at] = index;
      }
      const started = performance.now();
      try {
        kernels[at](calls[at]);
      } catch (error) {
        errors.postMessage(`node ${calls[at].node.name} (${calls[at].node.op}) failed on worker ${index}: ${error instanceof Error ? error.message : String(error)}`);
        markFailed(block);
      }
      block.busyMs[index] += performance.now() - started;
      if (traced) block.spans.end[at] = epochMs();
      block.scratchBytes[index] = kernelScratchBytes();
    }
    leaveStep(block, workers);
  }
  errors.close();
}

serve(workerData as WorkerSetup);
