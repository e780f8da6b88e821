import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Problem } from '../../../core/problem.ts';
import { MeetingPoint } from './meeting-point.ts';
import { solveOffsetsExact, SYNC_NODES, type ExactOffsetsOptions, type ExactOffsetsOutcome, type Partner } from './solve.ts';
import { threadScript } from './thread-module.ts';
import { epochMs } from '../../../core/clock.ts';
import { mergeTrajectories, type TrajectoryPoint } from './trajectory.ts';

/** What the portfolio's second thread is given (structured-cloned) and hands back. */
export interface ThreadJob {
  readonly name: string;
  readonly records: Problem['records'];
  readonly operatorCount: number;
  readonly options: ExactOffsetsOptions;
  /** Epoch milliseconds of the shared deadline. */
  readonly deadline: number;
  readonly buffer: SharedArrayBuffer;
}

export type ThreadResult =
  | { readonly offsets: Float64Array; readonly arena: number; readonly bound: number; readonly nodes: number; readonly trajectory: readonly TrajectoryPoint[] }
  | { readonly error: string };

/** Threads of offsets/exact by default: both cores of the machines this project measures on. */
export const DEFAULT_THREADS = 2;
/** The second thread is given up this long past the deadline if it has not answered (ms). */
const GRACE_MS = 1000;
/** No second thread is started with less time than this left (ms): starting one takes up to a second from TypeScript sources. */
const MIN_THREAD_MS = 1000;

/**
 * offsets/exact on `threads` threads (1 or 2). Thread 1 is solve.ts's search as alone
 * (the fixed orders, the bound first, then bisection: what proves the optimum), but for
 * the time its question at the bound gets (a quarter, not half: solve.ts);
 * thread 2 runs improver.ts (always a step below the best packing, seeded orders and
 * chains). It is started only once the first search has counted SYNC_NODES nodes, so a
 * problem solved at once never pays for a thread. They meet every SYNC_NODES nodes
 * (meeting-point.ts): each learns the other's best arena and bound, and both stop as soon
 * as one's packing meets either's bound. The answer is the better packing (the first
 * search's on a tie), under the higher bound.
 *
 * Deterministic for a seed and thread count: what a side knows of the other comes only
 * from checkpoints, which fall at node counts, so a run stopped by `nodeLimit` (per
 * thread) or by a proof gives the same plan on every machine; a run stopped by the clock
 * may not, as with one thread.
 */
export function solveWithThreads(problem: Problem, options: ExactOffsetsOptions & { readonly threads?: number; readonly improverSeed?: number }): ExactOffsetsOutcome {
  const threads = options.threads ?? DEFAULT_THREADS;
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > 2) throw new RangeError(`threads must be 1 or 2, got ${options.threads}.`);
  const startEpochMs = options.startEpochMs ?? epochMs();
  const solverOptions = { ...options, startEpochMs };
  if (threads === 1) return solveOffsetsExact(problem, solverOptions);

  const deadline = startEpochMs + options.timeLimitMs;
  let meeting: MeetingPoint | undefined;
  let thread: { worker: Worker; port: MessageChannel['port1'] } | undefined;
  const partner: Partner = {
    exchange(arena, bound) {
      if (meeting === undefined) {
        // The first checkpoint starts the second thread (unless too little time is left
        // for it to start and search: then the first search goes on alone); the meetings
        // count from the next.
        if (deadline - epochMs() < MIN_THREAD_MS) return { arena: Infinity, bound: 0, stop: false };
        meeting = new MeetingPoint(MeetingPoint.buffer(), 0, deadline);
        const threadOptions = { ...solverOptions, seed: options.improverSeed ?? options.seed ?? 0 };
        thread = startThread({ name: problem.name, records: problem.records, operatorCount: problem.operatorCount, options: threadOptions, deadline, buffer: meeting.buffer });
        return { arena: Infinity, bound: 0, stop: false };
      }
      return meeting.exchange(arena, bound);
    },
  };
  const own = solveOffsetsExact(problem, solverOptions, partner);
  if (meeting === undefined || thread === undefined) return own;
  meeting.finish(own.arena, own.bound);
  const answered = meeting.awaitOther(GRACE_MS);
  const message = answered ? receive(thread.port) : undefined;
  void thread.worker.terminate();
  thread.worker.unref();
  if (message !== undefined && 'error' in message) throw new Error(`offsets/exact: the second search thread failed: ${message.error}`);
  if (message === undefined) return own;
  const theirs = message;
  const better = theirs.arena < own.arena;
  const arena = better ? theirs.arena : own.arena;
  const bound = Math.min(arena, Math.max(own.bound, theirs.bound));
  return {
    offsets: better ? theirs.offsets : own.offsets,
    arena,
    bound,
    optimal: arena === bound,
    parts: own.parts,
    nodes: own.nodes + theirs.nodes,
    trajectory: mergeTrajectories(own.trajectory, theirs.trajectory),
  };
}

function startThread(job: ThreadJob): { worker: Worker; port: MessageChannel['port1'] } {
  // A module that cannot be loaded reports like a thread that failed (portfolio-thread.ts
  // does the same for errors of the search), since this thread waits without an event loop.
  const { script, env } = threadScript(import.meta.url, './portfolio-thread', FAILURE_REPORT);
  const channel = new MessageChannel();
  const worker = new Worker(script, { eval: true, env, workerData: { job, port: channel.port2 }, transferList: [channel.port2] });
  worker.on('error', () => {});
  return { worker, port: channel.port1 };
}

/** Inside the thread: post the error, then mark side 1 failed and finished (meeting-point.ts's layout). */
const FAILURE_REPORT = [
  "const { workerData } = require('node:worker_threads');",
  'workerData.port.postMessage({ error: String(error && error.stack || error) });',
  'const control = new Int32Array(workerData.job.buffer, 0, 8);',
  'Atomics.store(control, 4, 1); Atomics.store(control, 3, 1); Atomics.store(control, 1, 0x7fffffff); Atomics.notify(control, 1);',
].join(' ');

/** The second thread's answer: posted before it marked itself finished, so it is there. */
function receive(port: MessageChannel['port1']): ThreadResult | undefined {
  for (let tries = 0; tries < 1000; tries++) {
    const received = receiveMessageOnPort(port);
    if (received !== undefined) return received.message as ThreadResult;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
  }
  return undefined;
}

export { SYNC_NODES };
