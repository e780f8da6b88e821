// What the README test files share: the README's commands, how each is run (How), a scratch
// folder laid out like a clone, and the runner that registers a group's commands as tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LATENCY_RUN_FILE } from '../../src/report/reproduce.ts';
import { testBrowser } from '../backends/browser/browser-available.ts';
import { webgpuAvailable } from '../backends/webgpu/adapter.ts';
import { ROOT, runCommand } from '../cli/run-memplan.ts';

/**
 * The README's commands: each line of its ```sh blocks, its comment left off and `a && b`
 * taken as two commands, and each inline `npx ...` span of its prose (a whole command, where
 * `memplan exec` in a sentence is only a name). In the README's order, each once.
 */
export function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const line of blocks.flatMap((block) => block.split('\n'))) {
    const command = line.replace(/\s+#\s.*$/, '').trim();
    if (command !== '') commands.push(...command.split(' && ').map((part) => part.trim()));
  }
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  for (const span of prose.matchAll(/`([^`]+)`/g)) {
    const text = span[1].replace(/\s+/g, ' ');
    if (text.startsWith('npx ')) commands.push(text);
  }
  return [...new Set(commands)];
}

/** What a command left behind for the ones after it. */
export interface Sandbox {
  /** The folder the commands run in, laid out like a clone (see makeSandbox). */
  readonly dir: string;
  /** The token `openssl rand -hex 16` gave the agent the README starts (what its `...` stands for). */
  token(): string;
  /** The newest run folder under results/<experiment>/, relative to `dir`. */
  latestRun(experiment: string): string;
}

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly sandbox: Sandbox;
}

/** How one README command is run here. */
export type How =
  /** Run by .ci/run on a clean clone, where it must work as the README says (checked below). */
  | { readonly ci: true }
  /** Run by another test, named; `why` says why not here. */
  | { readonly elsewhere: string; readonly why: string }
  | {
      /** The command as run, where it is not run as written: then `why` says what changed and why. */
      readonly run?: string | ((sandbox: Sandbox) => string | Promise<string>);
      readonly why?: string;
      /** Runs in the repository itself (npm scripts), not in the scratch clone. */
      readonly inRepository?: true;
      /** A server: started in the background, ready when its output matches, stopped before the next server or at the end. */
      readonly serves?: RegExp;
      /** Needs ../shared (skipped, saying so, where it is absent). */
      readonly needsShared?: true;
      /** Needs a Chromium-based browser (skipped, saying so, where there is none). */
      readonly needsBrowser?: true;
      /** Needs a WebGPU adapter (skipped, saying so, where there is none: scripts/install-vulkan.sh installs a software one). */
      readonly needsWebGpu?: true;
      /** Through npx itself rather than the shell function that stands for it (see bashFor). */
      readonly viaNpx?: true;
      /** What the command must have done, beyond exit code 0 and no stack trace. */
      readonly check?: (ran: Ran) => void | Promise<void>;
    };

/** The repository's ../shared, which the scratch clone does not have beside it. */
export const SHARED = resolve(ROOT, '..', 'shared');
/** This machine's Chromium-based browser, or undefined (the browser commands skip, saying so). */
export const THIS_BROWSER = testBrowser('test/readme (the browser commands)');

/** The README's commands, in its order. */
export const COMMANDS = readmeCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));

/**
 * A folder laid out like a clone, so that the commands write nothing into the repository:
 * experiments/, datasets/ and examples/ linked; results/ empty but for the latency run that
 * claim 7 reads (its pointer copied, the run linked); a package.json and node_modules/.bin/
 * memplan, so that `npx memplan` finds the command as it does in a clone. No ../shared
 * beside it (CI has none): the scaling sweep skips its traces, as there.
 */
function makeSandbox(): { sandbox: Sandbox; parent: string } {
  const parent = mkdtempSync(join(tmpdir(), 'memplan-readme-'));
  const dir = join(parent, 'clone');
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  for (const folder of ['experiments', 'datasets', 'examples']) symlinkSync(join(ROOT, folder), join(dir, folder));
  const latency = join(dir, 'results/latency-cpu');
  mkdirSync(latency, { recursive: true });
  copyFileSync(join(ROOT, 'results/latency-cpu', LATENCY_RUN_FILE), join(latency, LATENCY_RUN_FILE));
  const named = (JSON.parse(readFileSync(join(latency, LATENCY_RUN_FILE), 'utf8')) as { run: string }).run;
  symlinkSync(join(ROOT, 'results/latency-cpu', named), join(latency, named));
  writeFileSync(join(dir, 'package.json'), '{ "name": "readme-commands", "private": true }\n');
  symlinkSync(join(ROOT, 'bin/memplan.js'), join(dir, 'node_modules/.bin/memplan'));
  const tokenFile = join(parent, 'token');
  const sandbox: Sandbox = {
    dir,
    token: () => readFileSync(tokenFile, 'utf8').trim(),
    latestRun: (experiment) => {
      const runs = readdirSync(join(dir, 'results', experiment)).sort();
      return join('results', experiment, runs[runs.length - 1]);
    },
  };
  return { sandbox, parent };
}

/**
 * bash with two helpers: `npx memplan` runs this checkout's command directly (what npx does in
 * a clone, without npx's half second; a command marked viaNpx goes through npx itself),
 * and `openssl` keeps what it prints, so that the test knows the agent's token.
 */
function bashFor(parent: string, command: string, viaNpx: boolean): string[] {
  const prelude = [
    viaNpx ? '' : `npx() { if [ "$1" = memplan ]; then shift; node ${JSON.stringify(join(ROOT, 'bin/memplan.js'))} "$@"; else command npx "$@"; fi; }`,
    `openssl() { command openssl "$@" | tee ${JSON.stringify(join(parent, 'token'))}; }`,
  ].join('\n');
  return ['-c', `${prelude}\n${command}`];
}

/** The commands' environment: the benchmarks' CSV files go into the scratch folder, not the developer's bench/out/ (runCommand turns colours off). */
const envFor = (parent: string): NodeJS.ProcessEnv => ({ MEMPLAN_BENCH_OUT: join(parent, 'bench-out') });

/** Starts a server command; resolves once its output matches `ready`. */
function serve(args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const child = spawn('bash', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`not ready within 30 s:\n${output}`)), 30_000);
    const look = (chunk: string) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        done(child);
      }
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.on('exit', (status) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${status} before it was ready:\n${output}`));
    });
  });
}

/** Stops a server and everything it started (bash, node). */
function stop(server: ChildProcess | undefined): void {
  if (server?.pid !== undefined && server.exitCode === null) {
    server.removeAllListeners('exit');
    process.kill(-server.pid, 'SIGTERM');
  }
}

/**
 * Registers the commands of one group as tests, in the README's order, run one after the
 * other in a scratch clone of its own (a group's commands may use what the ones before left).
 */
export function runReadmeGroup(title: string, group: Readonly<Record<string, How>>): void {
  describe.sequential(`the README's commands: ${title}, as a user runs them`, () => {
    const { sandbox, parent } = makeSandbox();
    let server: ChildProcess | undefined;
    afterAll(() => {
      stop(server);
      rmSync(parent, { recursive: true, force: true });
    });
    const hasShared = existsSync(SHARED);
    for (const command of COMMANDS) {
      const how = group[command];
      if (how === undefined || 'ci' in how || 'elsewhere' in how) continue;
      const missing = how.needsShared === true && !hasShared ? `${SHARED} is absent` : how.needsBrowser === true && THIS_BROWSER === undefined ? 'no browser' : undefined;
      if (missing !== undefined) console.warn(`SKIPPED the README's command ${command}: ${missing}.`);
      it.skipIf(missing !== undefined)(
        command,
        async (context) => {
          // Asked only when the command runs: the probe starts a process of its own.
          if (how.needsWebGpu === true && !(await webgpuAvailable(`the README's command ${command}`))) return context.skip();
          const text = typeof how.run === 'function' ? await how.run(sandbox) : (how.run ?? command);
          const args = bashFor(parent, text, how.viaNpx === true);
          const cwd = how.inRepository === true ? ROOT : sandbox.dir;
          if (how.serves !== undefined) {
            stop(server);
            server = await serve(args, cwd, { ...process.env, NO_COLOR: '1', ...envFor(parent) }, how.serves);
            return;
          }
          const ran = await runCommand('bash', args, envFor(parent), cwd);
          expect(ran.status, `${text}\n--- stderr ---\n${ran.stderr}`).toBe(0);
          expect(ran.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
          await how.check?.({ ...ran, sandbox });
        },
        120_000,
      );
    }
  });
}
