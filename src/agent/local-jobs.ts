import { printable } from '../io/printable.ts';
import { Refusal, sentence } from './http/refusal.ts';
import type { ServedBackend } from './check-job.ts';
import { JobProcesses } from './job-process.ts';
import type { AgentCounters } from './wire.ts';

export type Counters = { -readonly [K in keyof AgentCounters]: AgentCounters[K] };

/**
 * A job body the agent holds until the job's turn. `take` hands the bytes over once, to the
 * job process, and gives their share of the agent's body memory back.
 */
export interface HeldBody {
  take(): Buffer;
}

/** What every job of the agent runs under, wherever it runs: its limits, the counters, the log. */
export interface JobContext {
  readonly maxTensorBytes: number;
  readonly maxRunSeconds: number;
  readonly counters: Counters;
  readonly log: (line: string) => void;
  readonly closing: () => boolean;
}

export interface LocalJobOptions extends JobContext {
  readonly served: readonly ServedBackend[];
  readonly maxQueuedJobs: number;
}

/**
 * The jobs that run on this machine: one at a time, in the order they came, each in a job
 * process of its own (job-process.ts) that checks the job, runs it, and is killed at the time
 * cap or when its client goes away.
 */
export class LocalJobs {
  private readonly processes = new JobProcesses();
  private waiting = 0;
  private running = false;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly options: LocalJobOptions) {}

  /** The process for the first job, loaded and ready (throws with its error when it cannot start). */
  warm(): Promise<void> {
    return this.processes.warm();
  }

  close(): Promise<void> {
    return this.processes.close();
  }

  /**
   * Runs a job that names no device and resolves with its report. Rejects with a Refusal:
   * 503 when a job runs and the queue is full, 400 when the job fails its checks, 504 at the
   * time cap, 503 when its client went away or the agent closes, 500 when it failed.
   */
  async run(body: HeldBody, signal: AbortSignal): Promise<unknown> {
    const { counters, log, maxRunSeconds } = this.options;
    if (this.running && this.waiting >= this.options.maxQueuedJobs) {
      throw new Refusal(503, `the agent is busy with a job and ${this.waiting} waiting; try again later.`, { 'Retry-After': '10' });
    }
    this.waiting++;
    let number = 0;
    let started = 0;
    const outcome = await this.exclusive(async () => {
      this.waiting--;
      if (signal.aborted) return { kind: 'aborted' as const };
      this.running = true;
      try {
        const message = (): { body: Buffer; served: readonly ServedBackend[]; maxTensorBytes: number } => ({
          body: body.take(),
          served: this.options.served,
          maxTensorBytes: this.options.maxTensorBytes,
        });
        return await this.processes.run(message, maxRunSeconds * 1000, signal, (job) => {
          number = ++counters.started;
          started = performance.now();
          log(`job ${number}: ${printable(job.graph)}, ${printable(job.planner)}, ${printable(job.backend)}, ${job.warmup} warmup + ${job.repetitions} runs`);
        });
      } finally {
        this.running = false;
      }
    });
    const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
    switch (outcome.kind) {
      case 'refused':
        throw new Refusal(400, sentence(outcome.message));
      case 'done':
        counters.completed++;
        log(`job ${number}: done in ${took}`);
        return outcome.report;
      case 'timeout':
        counters.timedOut++;
        log(`job ${number}: stopped at the ${maxRunSeconds} s limit`);
        throw new Refusal(504, `the job ran past the agent's limit of ${maxRunSeconds} s and was stopped.`);
      case 'aborted':
        counters.abandoned++;
        log(`job ${number === 0 ? '(queued)' : number}: abandoned, ${this.options.closing() ? 'the agent is closing' : 'the client went away'}`);
        throw new Refusal(503, 'the agent is shutting down.');
      case 'failed':
        counters.failed++;
        log(`job ${number}: failed: ${outcome.message}`);
        throw new Refusal(500, `the job failed on the agent: ${sentence(outcome.message)}`);
    }
  }

  /** Runs `task` after every job before it (one job at a time). */
  private async exclusive<T>(task: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await task();
    } finally {
      release();
    }
  }
}
