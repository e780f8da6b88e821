import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: the command runs from there, as a user runs it after `npm ci`. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CommandRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `memplan` (node bin/memplan.js) as a child process. Starting it takes ~0.3 s. */
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
