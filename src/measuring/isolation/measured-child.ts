import { fork } from 'node:child_process';
import { fileSystemSentence } from '../../io/file-system-error.ts';
import { BackendError } from '../../backends/backend-error.ts';
import { childModule } from '../../backends/child-module.ts';
import { resetPeakRss, settledRss } from '../process-memory.ts';

/**
 * The protocol of a measured process: it starts, takes its baseline, says `ready`; the
 * harness hands it its job in one or more messages; it answers `done` with a result or
 * `failed` with one sentence (`backend`: a BackendError, the user's problem) and exits.
 */
type FromChild<R> = { readonly type: 'ready' } | { readonly type: 'done'; readonly result: R } | { readonly type: 'failed'; readonly message: string; readonly backend: boolean };

/** What a measured process knows of itself when its job arrives. */
export interface MeasuredContext {
  /** Resident bytes after start-up (imports and `before`), before the job. */
  readonly baselineRss: number;
  /**
   * What `before` added to the resident bytes (the backend opened and warmed up: its code
   * compiled, its threads started): the runtime's own cost, measured, and not part of the
   * job's peak - baseline.
   */
  readonly runtimeRss: number;
  /**
   * Takes the baseline again, once the garbage collector is done, and starts a new peak: for
   * a job that has done its own start-up (received, checked, its kernels compiled by a dry
   * run whose memory it let go). Resolves with the new baseline.
   */
  rebaseline(): Promise<number>;
  /** The garbage collector (the process runs with --expose-gc), or nothing. */
  readonly collect: () => void;
  /** A collection of the young generation alone (a scavenge), or nothing. */
  readonly collectYoung: () => void;
}

/**
 * The environment a measured process adds to its parent's: glibc's malloc keeps a single
 * arena. With one arena per thread (glibc's default, up to 8 per core), a background
 * compilation inside the measured window could take fresh pages of an arena of its own: rest
 * measured 1.7-1.9 MiB on MobileNet v2 and 1.0-1.9 on BlazeFace with the default, 0.1-1.3 and
 * 0.1-0.4 with one arena (Greedy by Size, 3-4 runs each). Other C libraries ignore it.
 */
export const MEASURED_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };

/**
 * Forks the sibling module `name` of the module at `base` (its import.meta.url) as a
 * measured process with `argv`, hands it its job through `handOver` once it is ready, and
 * resolves with its result. The process shares nothing with this one.
 */
export function forkMeasured<R>(base: string, name: string, argv: readonly string[], handOver: (post: (message: unknown) => Promise<void>) => Promise<void>): Promise<R> {
  // Start-up that stays out of the measurement: a young generation of 1 MiB (V8 grows it up to
  // 16 MiB under the allocation of preparing a network: 2-3 MiB of a small network's peak, the
  // collector's and not the plan's; inferences allocate nothing, so they lose nothing), and
  // WebAssembly compiled by the optimizing tier at once (--no-liftoff): otherwise the kernels
  // are optimized in the background at a moment of V8's choosing, and its few MiB land before
  // or after the baseline by chance (measured: runtime and rest trading 2.5 MiB from run to run).
  // One malloc arena (MEASURED_ENV): V8's compiler threads then reuse what their work before
  // the baseline freed, instead of touching fresh pages of an arena of their own inside the
  // measured window.
  const { path, execArgv, env } = childModule(base, name, ['--expose-gc', '--max-semi-space-size=1', '--no-liftoff']);
  const child = fork(path, [...argv], { execArgv, env: { ...env, ...MEASURED_ENV }, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const post = (message: unknown): Promise<void> => new Promise((resolve, reject) => child.send(message as object, undefined, {}, (error) => (error ? reject(error) : resolve())));
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      outcome();
    };
    child.on('error', (error) => finish(() => reject(new Error(`the measurement process could not run: ${error.message}`))));
    child.on('close', (code, signal) =>
      finish(() => {
        const last = stderr
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => /^[A-Za-z]*Error\b/.test(l))
          .pop();
        reject(new Error(`the measurement process ${signal ? `was killed by ${signal}` : `exited with code ${code}`} before it reported${last ? ` (${last})` : ''}.`));
      }),
    );
    child.on('message', (message: FromChild<R>) => {
      if (message?.type === 'ready') {
        handOver(post).catch((error: Error) => finish(() => reject(new Error(`the job could not be handed to the measurement process (${error.message}).`))));
      } else if (message?.type === 'done') {
        finish(() => resolve(message.result));
      } else if (message?.type === 'failed') {
        finish(() => reject(message.backend ? new BackendError(message.message) : new Error(message.message)));
      }
    });
  });
}

/**
 * The measured process's side: runs `before` (opening a device and warming the backend up is
 * start-up too; what it adds is measured as the runtime's), collects garbage, takes the
 * baseline RSS, resets the peak, says `ready`, then passes each message
 * to `receive` until it returns the job's run, whose result (or error) it reports before
 * exiting. It exits as soon as the harness goes away.
 */
export async function serveMeasured<R>(what: string, receive: (message: unknown, context: MeasuredContext) => Promise<R> | undefined, before?: () => Promise<unknown>): Promise<void> {
  if (process.send === undefined) {
    process.stderr.write(`${what} is started by memplan to measure one job alone; it is not a command.\n`);
    process.exit(2);
  }
  const send = (message: FromChild<R>, then: () => void): void => {
    if (!process.connected) process.exit(1);
    process.send?.(message, undefined, {}, () => then());
  };
  process.on('disconnect', () => process.exit(1));
  const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
  const collect = gc ?? (() => {});
  const collectYoung = gc === undefined ? () => {} : () => gc({ type: 'minor' });
  const started = await settledRss(collect);
  await before?.();
  const baselineRss = await settledRss(collect);
  const rebaseline = async (): Promise<number> => {
    const rss = await settledRss(collect);
    resetPeakRss();
    return rss;
  };
  const context = { baselineRss, runtimeRss: Math.max(0, baselineRss - started), collect, collectYoung, rebaseline };
  resetPeakRss();
  let running = false;
  process.on('message', (message: unknown) => {
    if (running) return;
    const run = receive(message, context);
    if (run === undefined) return;
    running = true;
    run.then(
      (result) => send({ type: 'done', result }, () => process.exit(0)),
      (error: unknown) => {
        // A file the job writes that cannot be written (a full disk) is the user's to fix, said in one sentence.
        const sentence = fileSystemSentence(error);
        const message = sentence ?? (error instanceof Error ? error.message : String(error));
        send({ type: 'failed', message, backend: sentence !== undefined || error instanceof BackendError }, () => process.exit(1));
      },
    );
  });
  send({ type: 'ready' }, () => {});
}
