import { epochMs } from '../../core/clock.ts';

/**
 * The shared memory through which the main thread runs steps on the pool's workers, and
 * the barrier between them (Atomics.wait / Atomics.notify; no messages; a worker watches
 * briefly before it blocks). Both sides use these functions and nothing else.
 *
 * A run of steps: the main thread resets the operator counter and the count of workers done,
 * names the first step and the end of the run, and bumps the generation; every worker wakes
 * on the new generation, takes the step's operators one at a time from the shared counter
 * until none is left, and counts itself done. The last one to count itself done begins the
 * next step (resets the counters, names it, bumps the generation), or, after the run's last
 * step or a failed one, marks the run finished and wakes the main thread. A worker takes no
 * operator of a step after it counted itself done, so the next step can only start once
 * every operator of this one has finished: that is the barrier between steps. The main
 * thread wakes once a run, not once a step (Inception v3 on two cores: 126 steps, 23 ms of
 * gaps an inference when every step went through it).
 */

/** Slots of the control array. */
const GENERATION = 0;
const STEP = 1;
const NEXT = 2;
const DONE = 3;
const FAILED = 4;
/** Set: workers time every operator into the span arrays (a traced inference). */
const TRACING = 5;
/** The step after the run's last (a run is the steps STEP, STEP + 1, ... up to it). */
const END = 6;
/** Set by the worker that ends the run (its last step done, or a step failed). */
const FINISHED = 7;
const SLOTS = 8;

/** The step number that tells the workers to stop. */
export const QUIT = -1;
/** The step number that tells the workers to take a network (its setup waits on each one's port). */
export const LOAD = -2;

export interface StepBlock {
  /** Generation, step, next operator, workers done, failed (Int32, shared). */
  readonly control: Int32Array;
  /** Milliseconds each worker has spent inside kernels since it started (its own slot only). */
  readonly busyMs: Float64Array;
  /** Bytes of kernel scratch each worker holds (its own slot only). */
  readonly scratchBytes: Float64Array;
  /** Bytes of weights each worker derived in a form of its own for the network it holds (its own slot only). */
  readonly derivedBytes: Float64Array;
}

/** A traced inference: per operator, when it started and ended (shared clock, ms) and which worker ran it. */
export interface Spans {
  readonly start: Float64Array;
  readonly end: Float64Array;
  readonly worker: Int32Array;
}

export function makeStepBlock(workers: number): StepBlock {
  return {
    control: new Int32Array(new SharedArrayBuffer(SLOTS * 4)),
    busyMs: new Float64Array(new SharedArrayBuffer(workers * 8)),
    scratchBytes: new Float64Array(new SharedArrayBuffer(workers * 8)),
    derivedBytes: new Float64Array(new SharedArrayBuffer(workers * 8)),
  };
}

export function makeSpans(operators: number): Spans {
  return { start: new Float64Array(new SharedArrayBuffer(operators * 8)), end: new Float64Array(new SharedArrayBuffer(operators * 8)), worker: new Int32Array(new SharedArrayBuffer(operators * 4)) };
}

/** Main thread: whether the next steps are traced. */
export function setTracing(block: StepBlock, on: boolean): void {
  Atomics.store(block.control, TRACING, on ? 1 : 0);
}

/** Worker: whether to time each operator. */
export function tracing(block: StepBlock): boolean {
  return Atomics.load(block.control, TRACING) !== 0;
}

/** Main thread: starts the steps [first, end) on every worker, one after the other (LOAD or QUIT alone: end = first + 1). */
export function startSteps(block: StepBlock, first: number, end: number): void {
  const control = block.control;
  Atomics.store(control, NEXT, 0);
  Atomics.store(control, DONE, 0);
  Atomics.store(control, FAILED, 0);
  Atomics.store(control, FINISHED, 0);
  Atomics.store(control, END, end);
  Atomics.store(control, STEP, first);
  Atomics.add(control, GENERATION, 1);
  Atomics.notify(control, GENERATION);
}

/** Main thread: blocks until the run started last is finished, or `timeoutMs` passes; true when finished. */
export function waitSteps(block: StepBlock, timeoutMs: number): boolean {
  const control = block.control;
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (Atomics.load(control, FINISHED) !== 0) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    Atomics.wait(control, FINISHED, 0, left);
  }
}

/** Main thread, after a run: the step it ended on (the failed one, where one failed). */
export function lastStep(block: StepBlock): number {
  return Atomics.load(block.control, STEP);
}

/** Main thread, after a step: did an operator of it fail? */
export function stepFailed(block: StepBlock): boolean {
  return Atomics.load(block.control, FAILED) !== 0;
}

/**
 * How long a worker that finished its share of a step watches for the next one before it
 * blocks. A blocked worker woke up to 4 ms after the step began (Inception v3 on 2 cores,
 * traced: the second worker's first operator started 0.5-4 ms after the first's in 40 of
 * 94 split steps, 48-87 ms of an inference of about 200, and 21-32 steps ran on one worker
 * alone); watching 0.2 ms caught the next step in all but a few (5 ms of start gaps, one
 * step alone). Steps follow each other within tens of microseconds, so the watch is short,
 * and a worker between inferences blocks after it as before.
 */
const WATCH_MS = 0.2;

/** Worker: blocks until a generation after `seen`; returns it and the step to run. */
export function awaitStep(block: StepBlock, seen: number): { generation: number; step: number } {
  const control = block.control;
  const until = performance.now() + WATCH_MS;
  do {
    for (let i = 0; i < 64; i++) {
      const generation = Atomics.load(control, GENERATION);
      if (generation !== seen) return { generation, step: Atomics.load(control, STEP) };
    }
  } while (performance.now() < until);
  for (;;) {
    const generation = Atomics.load(control, GENERATION);
    if (generation !== seen) return { generation, step: Atomics.load(control, STEP) };
    Atomics.wait(control, GENERATION, seen);
  }
}

/** Worker: the next operator of a step of `count` (its position in the step), or -1 when all are taken. */
export function takeOperator(block: StepBlock, count: number): number {
  const k = Atomics.add(block.control, NEXT, 1);
  return k < count ? k : -1;
}

/** Worker: an operator failed (its message goes through the worker's error port). */
export function markFailed(block: StepBlock): void {
  Atomics.store(block.control, FAILED, 1);
}

/**
 * Worker: done with the step. The last of `workers` to be done begins the run's next step,
 * or finishes the run (its last step, or a failed one) and wakes the main thread; it notes
 * when an operator step ended in `stepEnds` (shared clock, ms), where given.
 */
export function leaveStep(block: StepBlock, workers: number, stepEnds?: Float64Array): void {
  const control = block.control;
  if (Atomics.add(control, DONE, 1) + 1 < workers) return;
  const step = Atomics.load(control, STEP);
  if (step >= 0 && stepEnds !== undefined && step < stepEnds.length) stepEnds[step] = epochMs();
  if (Atomics.load(control, FAILED) !== 0 || step + 1 >= Atomics.load(control, END)) {
    Atomics.store(control, FINISHED, 1);
    Atomics.notify(control, FINISHED);
    return;
  }
  Atomics.store(control, NEXT, 0);
  Atomics.store(control, DONE, 0);
  Atomics.store(control, STEP, step + 1);
  Atomics.add(control, GENERATION, 1);
  Atomics.notify(control, GENERATION);
}
