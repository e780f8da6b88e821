import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { WeightReads } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { LoadSchedule } from './load-schedule.ts';

/** Slots of the shared counters both threads synchronise on (Int32, Atomics). */
const GO = 0; // inferences begun by the compute thread
const COMPUTED = 1; // compute steps finished, over every inference
const LOADED = 2; // loads finished, over every inference
const STOP = 3; // set: the loader exits
const SEQUENCE = 4; // the next trace sequence number
const FAILED = 5; // set by the loader when a read fails
const DONE = 6; // set by the loader when it has let go of the session (and collected its garbage)
const DIRECT = 7; // set by the loader when the session's reads bypass the page cache (O_DIRECT)
const SLOTS = 8;

/**
 * Bytes of the loader's staging area for O_DIRECT reads: a direct read lands only on a
 * page-aligned buffer, in whole blocks, and a weight slice's place in the plan's buffer is
 * neither. The loader reads a slice through it in pieces of at most this size and copies
 * each piece to its place. Made and touched when the thread starts, before a measured
 * baseline: the runtime's, like the thread itself (its device info says so).
 */
export const STAGING_BYTES = 2 ** 20;

/** Milliseconds without a finished load after which the compute thread gives up on the loader. */
const STUCK_MS = 60_000;

/**
 * The loader thread's code. It runs as an eval'd CommonJS worker so that it starts the same
 * from compiled JavaScript, from TypeScript through tsx, and inside the test runner (a
 * worker from a .ts file needs a loader in every one of them). It runs one network's
 * loads at a time (a session, one message): per inference it walks the schedule, waits
 * until the compute thread has begun the inference and finished the steps a load depends
 * on, reads the weights, and counts the load as finished; until the session is stopped.
 * Reads bypass the page cache where the job asks it and the file system allows (O_DIRECT,
 * through the staging area, so that the storage is read and not memory); without O_DIRECT,
 * pread straight into the shared buffer. With a stated speed, a load ends no sooner than a
 * device of that speed would have served its bytes (io/storage-bandwidth.ts, the same rule). Each load's start and end go into the shared
 * times (ms on the clock every thread shares: a run's trace); with a trace, each load also
 * takes a sequence number from the shared counter as it starts and as it ends.
 */
const LOADER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const [GO, COMPUTED, LOADED, STOP, SEQUENCE, FAILED, DONE, DIRECT] = [${GO}, ${COMPUTED}, ${LOADED}, ${STOP}, ${SEQUENCE}, ${FAILED}, ${DONE}, ${DIRECT}];
const BLOCK = 4096;
// A WebAssembly memory's buffer is page-aligned (mmap): O_DIRECT takes it.
const staging = new Uint8Array(new WebAssembly.Memory({ initial: ${STAGING_BYTES} / 65536 }).buffer);
staging.fill(1);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function openWeights(path, direct) {
  if (direct && fs.constants.O_DIRECT !== undefined) {
    try {
      return { fd: fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_DIRECT), direct: true };
    } catch (error) {
      // tmpfs and some others refuse O_DIRECT: read through the page cache, and say so.
      if (!error || error.code !== 'EINVAL') throw error;
    }
  }
  return { fd: fs.openSync(path, 'r'), direct: false };
}
function readInto(heap, fd, direct, to, bytes, from, path) {
  for (let done = 0; done < bytes; ) {
    if (direct) {
      const left = bytes - done;
      const want = Math.min(staging.length, Math.ceil(left / BLOCK) * BLOCK);
      const read = fs.readSync(fd, staging, 0, want, from + done);
      if (read === 0) throw new Error('the weights file ' + path + ' ends before byte ' + (from + bytes));
      const take = Math.min(read, left);
      heap.set(staging.subarray(0, take), to + done);
      done += take;
    } else {
      const read = fs.readSync(fd, heap, to + done, bytes - done, from + done);
      if (read === 0) throw new Error('the weights file ' + path + ' ends before byte ' + (from + bytes));
      done += read;
    }
  }
}
function holdUntil(due) {
  for (;;) {
    const left = due - (performance.timeOrigin + performance.now());
    if (left <= 0) return;
    Atomics.wait(sleeper, 0, 0, left);
  }
}
function reach(sync, slot, value) {
  for (;;) {
    if (Atomics.load(sync, STOP) !== 0) return false;
    const now = Atomics.load(sync, slot);
    if (now >= value) return true;
    Atomics.wait(sync, slot, now, 1000);
  }
}
parentPort.on('message', (job) => {
  const sync = job.sync;
  run(job);
  job = undefined;
  // Let go of the session's buffer and garbage before saying so: a measured process
  // takes its baseline after a warm-up session, and nothing of it may be freed later.
  // Collected on the next turn, once the message that carried the buffer is let go too.
  setImmediate(() => {
    if (typeof gc === 'function') gc();
    Atomics.store(sync, DONE, 1);
    Atomics.notify(sync, DONE);
  });
});
function run(job) {
  const { sync, memory, base, path, direct, bytesPerSecond, fileOffsets, bufferOffsets, bytes, after, steps, trace, times, errors } = job;
  const heap = new Uint8Array(memory);
  let fd;
  try {
    const opened = openWeights(path, direct);
    fd = opened.fd;
    Atomics.store(sync, DIRECT, opened.direct ? 1 : 0);
    for (let inference = 0; ; inference++) {
      if (!reach(sync, GO, inference + 1)) return;
      for (let i = 0; i < after.length; i++) {
        if (!reach(sync, COMPUTED, inference * steps + after[i])) return;
        if (trace) trace[2 * i] = Atomics.add(sync, SEQUENCE, 1);
        const start = performance.timeOrigin + performance.now();
        times[2 * i] = start;
        readInto(heap, fd, opened.direct, base + bufferOffsets[i], bytes[i], fileOffsets[i], path);
        if (bytesPerSecond > 0) holdUntil(start + (bytes[i] * 1000) / bytesPerSecond);
        times[2 * i + 1] = performance.timeOrigin + performance.now();
        if (trace) trace[2 * i + 1] = Atomics.add(sync, SEQUENCE, 1);
        Atomics.add(sync, LOADED, 1);
        Atomics.notify(sync, LOADED);
      }
    }
  } catch (error) {
    errors.postMessage(error && error.message ? error.message : String(error));
    Atomics.store(sync, FAILED, 1);
    Atomics.notify(sync, LOADED);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    errors.close();
  }
}
`;

/** What the loader needs to run a prepared network's loads. */
export interface LoaderJob {
  /** The shared buffer (the WebAssembly memory's SharedArrayBuffer) and where the plan's byte 0 lies in it. */
  readonly memory: SharedArrayBuffer;
  readonly base: number;
  readonly path: string;
  readonly reads: WeightReads;
  readonly schedule: LoadSchedule;
  /** Compute steps per inference. */
  readonly steps: number;
  readonly trace: boolean;
}

/**
 * FlexNN's load thread (section 4): one worker thread per process, started before a
 * measured baseline (the backend's `open`), like a device, so that its isolate is the
 * runtime's and not the network's. It serves one prepared network at a time.
 */
export class LoaderThread {
  private readonly worker: Worker;
  private active: LoaderSession | undefined;

  constructor() {
    this.worker = new Worker(LOADER_SOURCE, { eval: true });
    // An idle loader must not keep a process alive that has nothing else to do.
    this.worker.unref();
  }

  /**
   * Hands the loader a network's loads; they run from the session's first `begin`. The
   * loader serves one network at a time: a network still prepared is let go first (its
   * inferences fail from then on), so that one never disposed cannot block the next.
   */
  start(job: LoaderJob): LoaderSession {
    this.active?.stop();
    this.active = new LoaderSession(this.worker, job);
    return this.active;
  }
}

let shared: LoaderThread | undefined;

/** This process's loader thread, started on first use. */
export function loaderThread(): LoaderThread {
  return (shared ??= new LoaderThread());
}

/** The compute thread's side of one network's loads: counters shared with the loader (Atomics). */
export class LoaderSession {
  /** Where the loader says why it failed; the compute thread reads it synchronously. */
  private readonly errors: MessagePort;
  private readonly sync = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private readonly loadTrace: Int32Array | undefined;
  private readonly times: Float64Array;
  private readonly loads: number;
  private inferences = 0;
  private stopped = false;

  constructor(worker: Worker, job: LoaderJob) {
    this.loads = job.schedule.after.length;
    this.loadTrace = job.trace ? new Int32Array(new SharedArrayBuffer(Math.max(1, 2 * this.loads) * 4)) : undefined;
    this.times = new Float64Array(new SharedArrayBuffer(Math.max(1, 2 * this.loads) * 8));
    const channel = new MessageChannel();
    this.errors = channel.port1;
    const { fileOffsets, bufferOffsets, bytes, after } = job.schedule;
    worker.postMessage(
      {
        sync: this.sync,
        memory: job.memory,
        base: job.base,
        path: job.path,
        direct: job.reads.direct,
        bytesPerSecond: job.reads.bytesPerSecond ?? 0,
        fileOffsets,
        bufferOffsets,
        bytes,
        after,
        steps: job.steps,
        trace: this.loadTrace,
        times: this.times,
        errors: channel.port2,
      },
      [channel.port2],
    );
  }

  /** The compute thread begins an inference (its inputs are in place): loads for it may start. */
  begin(): void {
    if (this.stopped) throw new BackendError('this network has been let go of (disposed, or another network was prepared since): prepare it again.');
    this.inferences++;
    Atomics.add(this.sync, GO, 1);
    Atomics.notify(this.sync, GO);
  }

  /** Blocks until `count` loads of the current inference have finished; returns the milliseconds waited. */
  waitForLoads(count: number): number {
    const target = (this.inferences - 1) * this.loads + count;
    if (Atomics.load(this.sync, LOADED) >= target) return 0;
    const started = performance.now();
    let progress = started;
    for (;;) {
      const now = Atomics.load(this.sync, LOADED);
      if (now >= target) return performance.now() - started;
      if (Atomics.load(this.sync, FAILED) !== 0) {
        const message = receiveMessageOnPort(this.errors)?.message as string | undefined;
        throw new BackendError(`the loader thread failed: ${message ?? 'no reason given'}.`);
      }
      // A loader that reads nothing for a minute is not slow storage but stuck: say so rather than hang.
      if (performance.now() - progress > STUCK_MS) throw new BackendError(`the loader thread has read nothing for ${STUCK_MS / 1000} s (${target - now} loads outstanding).`);
      if (Atomics.wait(this.sync, LOADED, now, 1000) !== 'timed-out') progress = performance.now();
    }
  }

  /** The compute thread finished a step. */
  computed(): void {
    Atomics.add(this.sync, COMPUTED, 1);
    Atomics.notify(this.sync, COMPUTED);
  }

  /** The next number of the order both threads' events share (a trace's clock). */
  sequence(): number {
    return Atomics.add(this.sync, SEQUENCE, 1);
  }

  /** Whether the session's reads bypass the page cache (known once its first inference has begun loading). */
  readsDirect(): boolean {
    return Atomics.load(this.sync, DIRECT) === 1;
  }

  /** With a trace: [start, end] sequence numbers of each load (schedule order) in the latest inference. */
  loadSequences(): Int32Array | undefined {
    return this.loadTrace?.slice();
  }

  /** [start, end] of each load (schedule order) in the latest inference, ms on the clock every thread shares. */
  loadTimes(): Float64Array {
    return this.times.slice();
  }

  /**
   * Ends the session: the loader stops waiting, lets go of the buffer and takes the next
   * network. Waits (up to a few seconds) until it has, so that the buffer is free after.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.sync, STOP, 1);
    Atomics.notify(this.sync, GO);
    Atomics.notify(this.sync, COMPUTED);
    Atomics.wait(this.sync, DONE, 0, 5000);
    this.errors.close();
  }
}
