import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

/** The repository root: the command runs from there, as a user runs it after `npm ci`. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CommandRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real `memplan` (node bin/memplan.js) as a child process. Starting it takes ~0.3 s
 * of CPU: tests of what a process does (signals, locks between processes, exit timing, the
 * program's start) run it so; tests of a command's output and exit status use memplanHere.
 */
export function memplan(...args: string[]): Promise<CommandRun> {
  return runNode('bin/memplan.js', ...args);
}

/** Runs the real `memplan` with these variables set (or emptied) in its environment. */
export function memplanWithEnv(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CommandRun> {
  return runCommand(process.execPath, ['bin/memplan.js', ...args], env);
}

/** Runs node with these arguments from the repository root, as a user's command would. */
export function runNode(...args: string[]): Promise<CommandRun> {
  return runCommand(process.execPath, args);
}

/** Runs a program from the repository root (or `cwd`) with colours off (and `env` added), collecting its output. */
export function runCommand(program: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Memoises a run that several tests look at. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** Bad input: exit code 2, nothing on stdout, one line on stderr, no stack trace. */
export function userErrorLine(run: CommandRun): string {
  const problems: string[] = [];
  if (run.status !== 2) problems.push(`exit code ${run.status}, expected 2`);
  if (run.stdout !== '') problems.push('output on stdout');
  if (!run.stderr.endsWith('\n') || run.stderr.trimEnd().includes('\n')) problems.push('stderr is not exactly one line');
  if (/^\s+at /m.test(run.stderr) || /Error:|\.ts:\d+/.test(run.stderr)) problems.push('a stack trace on stderr');
  if (problems.length > 0) throw new Error(`${problems.join('; ')}:\n--- stderr ---\n${run.stderr}--- stdout ---\n${run.stdout}`);
  return run.stderr.trimEnd();
}

/** Calls in this process run one after another: each owns process.stdout, stderr and exitCode while it runs. */
let previous: Promise<unknown> = Promise.resolve();

/**
 * Runs a `memplan` command line inside this test process: the program's own main(), with
 * what it writes to stdout and stderr collected and its exit status read from
 * process.exitCode, as the program reports them, colours off. No process start, no module
 * loaded twice: what a test of a command's output and exit status needs, at a fraction of
 * the CPU. An error main() does not handle comes back as node's would (status 1, the stack
 * on stderr). Tests of the program as a process (its start, signals, locks held by a pid)
 * use memplan().
 */
export function memplanHere(...args: string[]): Promise<CommandRun> {
  const run = previous.then(() => runHere(args));
  previous = run.catch(() => undefined);
  return run;
}

async function runHere(args: string[]): Promise<CommandRun> {
  const { main } = await import('../../src/cli/main.ts');
  const out: string[] = [];
  const err: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  // yargs prints --help and --version with console.log.
  const { log, error: logError } = console;
  console.log = (...items: unknown[]) => out.push(`${format(...items)}\n`);
  console.error = (...items: unknown[]) => err.push(`${format(...items)}\n`);
  const env = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
  const collect =
    (sink: string[]) =>
    (chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), done?: (error?: Error | null) => void): boolean => {
      sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = typeof encoding === 'function' ? encoding : done;
      if (callback) queueMicrotask(() => callback());
      return true;
    };
  process.stdout.write = collect(out) as typeof process.stdout.write;
  process.stderr.write = collect(err) as typeof process.stderr.write;
  process.env.NO_COLOR = '1';
  process.env.FORCE_COLOR = '0';
  process.exitCode = undefined;
  let status = 0;
  try {
    await main(args, { ownsProcess: false });
    status = Number(process.exitCode ?? 0);
  } catch (error) {
    err.push(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    status = 1;
  } finally {
    streams.forEach((stream, k) => {
      stream.write = writes[k];
    });
    console.log = log;
    console.error = logError;
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    process.exitCode = undefined;
  }
  return { status, stdout: out.join(''), stderr: err.join('') };
}
