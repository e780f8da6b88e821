import { fork, type ChildProcess } from 'node:child_process';
import { BackendError } from '../backends/backend-error.ts';
import { childModule } from '../backends/child-module.ts';
import type { FromRunner, JobSummary, ToRunner } from './job-messages.ts';

/** A job as the agent hands it to its process: the body as received, and the agent's limits for its checks. */
export interface JobBody extends Omit<ToRunner, 'type' | 'bytes'> {
  readonly body: Buffer;
}

/** How a job ended in its process. */
export type JobOutcome =
  /** Failed its checks in the process (a 400); nothing ran, and the process waits for the next job. */
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'done'; readonly report: unknown }
  /** Still running at the cap: killed. */
  | { readonly kind: 'timeout' }
  /** Abandoned by the caller (the client went away, the agent is closing): killed. */
  | { readonly kind: 'aborted' }
  | { readonly kind: 'failed'; readonly message: string };

interface Runner {
  readonly child: ChildProcess;
  /** True once the process has loaded the project and waits for its job; false if it ended first. */
  readonly ready: Promise<boolean>;
  /** The process has exited and its IPC channel and pipes are closed. */
  readonly gone: Promise<void>;
  stderrTail(): string;
}

function spawnRunner(): Runner {
  // By module path, not an import: the runner measures, a layer above the agent's.
  const { path, execArgv, env } = childModule(import.meta.url, '../measuring/job-runner');
  // Its own process group: killing the job kills the processes it measures in too.
  // stdin carries job bodies (measuring/job-runner.ts).
  const child = fork(path, [], { execArgv, env, serialization: 'advanced', stdio: ['pipe', 'ignore', 'pipe', 'ipc'], detached: true });
  let tail = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
  });
  // 'error': the process could not be started, killed or written to; never left unhandled.
  const gone = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.on('error', () => resolve());
  });
  child.stderr?.on('error', () => {});
  child.stdin?.on('error', () => {});
  const ready = new Promise<boolean>((resolve) => {
    const onMessage = (message: FromRunner): void => {
      if (message?.type !== 'ready') return;
      child.off('message', onMessage);
      resolve(true);
    };
    child.on('message', onMessage);
    void gone.then(() => resolve(false));
  });
  return { child, ready, gone, stderrTail: () => tail };
}

/** Kills a job process and every process it started (its process group). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function died(runner: Runner): string {
  const { exitCode, signalCode } = runner.child;
  const lines = runner
    .stderrTail()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at ') && !/^Node\.js v\d/.test(line));
  // The error line says most ("SyntaxError: ..."); else whatever came last.
  const last = lines.find((line) => /^[A-Za-z]*Error\b/.test(line)) ?? lines.pop();
  const how = signalCode !== null ? `was killed by ${signalCode}` : `exited with code ${exitCode}`;
  return `the job process ${how} before it reported${last === undefined ? '' : ` (${last.replace(/\.$/, '')})`}.`;
}

/**
 * Runs jobs one at a time, each in a fresh child process that can be killed: a job past its
 * time, or abandoned, takes its process with it and the agent carries on. The process for
 * the next job is started (and loads the project) once the previous one is gone, so it is
 * ready when a job comes and never competes with a measurement.
 */
export class JobProcesses {
  private standby: Runner | undefined;
  private readonly running = new Set<Runner>();
  private closed = false;

  constructor(private readonly startupMs = 120_000) {}

  /** Starts the process for the next job and waits until it is ready; throws, with its error, when it cannot start. */
  async warm(): Promise<void> {
    this.prestart();
    const runner = this.standby;
    if (runner === undefined) return;
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.startupMs).unref());
    if (!(await Promise.race([runner.ready, timeout]))) {
      if (alive(runner.child)) killGroup(runner.child);
      await runner.gone;
      throw new BackendError(`the agent cannot start a job process: ${died(runner)}`);
    }
  }

  /** Starts the process for the next job ahead of time. */
  prestart(): void {
    if (this.closed || this.standby !== undefined) return;
    const runner = spawnRunner();
    this.standby = runner;
    void runner.gone.then(() => {
      if (this.standby === runner) this.standby = undefined;
    });
  }

  /**
   * Hands a job body to the process for the next job: it checks the job (`refused`, and the
   * process stays for the next job) or takes it (`accepted` is called) and runs it. `job` is
   * called once, when the process is ready: the body is held nowhere here after it is sent.
   */
  run(job: () => JobBody, maxRunMs: number, signal: AbortSignal, accepted: (summary: JobSummary) => void = () => {}): Promise<JobOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'aborted' });
    const runner = this.standby ?? spawnRunner();
    this.standby = undefined;
    this.running.add(runner);
    return new Promise<JobOutcome>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: JobOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        runner.child.off('message', onMessage);
        if (outcome.kind === 'refused' && alive(runner.child) && this.standby === undefined && !this.closed) {
          // Nothing ran in it: it takes the next job.
          this.running.delete(runner);
          this.standby = runner;
          void runner.gone.then(() => {
            if (this.standby === runner) this.standby = undefined;
          });
          resolve(outcome);
          return;
        }
        if (alive(runner.child)) killGroup(runner.child);
        void runner.gone.then(() => {
          this.running.delete(runner);
          this.prestart();
        });
        resolve(outcome);
      };
      const onAbort = (): void => finish({ kind: 'aborted' });
      const onMessage = (message: FromRunner): void => {
        if (message?.type === 'accepted') accepted(message.job);
        else if (message?.type === 'refused') finish({ kind: 'refused', message: message.message });
        else if (message?.type === 'done') finish({ kind: 'done', report: message.report });
        else if (message?.type === 'failed') finish({ kind: 'failed', message: message.message });
      };
      if (signal.aborted) return finish({ kind: 'aborted' });
      signal.addEventListener('abort', onAbort, { once: true });
      runner.child.on('message', onMessage);
      timer = setTimeout(() => finish({ kind: 'failed', message: `the job process did not start within ${this.startupMs / 1000} s.` }), this.startupMs);
      void runner.ready.then((ready) => {
        if (settled) return;
        if (!ready) return finish({ kind: 'failed', message: died(runner) });
        clearTimeout(timer);
        timer = setTimeout(() => finish({ kind: 'timeout' }), maxRunMs);
        const { body, ...limits } = job();
        const handed = (error: Error | null | undefined): void => {
          if (error) finish({ kind: 'failed', message: `the job could not be handed to its process (${error.message}).` });
        };
        runner.child.stdin?.write(body, handed);
        runner.child.send({ type: 'job', bytes: body.length, ...limits } satisfies ToRunner, undefined, {}, handed);
      });
      void runner.gone.then(() => finish({ kind: 'failed', message: died(runner) }));
    });
  }

  /** Kills every job process, idle or running. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.running, ...(this.standby ? [this.standby] : [])];
    this.standby = undefined;
    for (const runner of all) if (alive(runner.child)) killGroup(runner.child);
    await Promise.all(all.map((runner) => runner.gone));
  }
}
