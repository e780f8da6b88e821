// Every command the README gives, run as a user runs it (issue 43: "the README's commands are
// all run by a test or by CI as written"). A command the README gains without an entry in
// HOW fails this file, and so does an entry the README no longer has.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../src/experiments/config.ts';
import { loadPlanner } from '../src/experiments/load-planner.ts';
import { shareableCells } from '../src/experiments/runner.ts';
import { assignShards } from '../src/experiments/shards.ts';
import { missingChartFonts } from '../src/report/charts/render.ts';
import { LATENCY_RUN_FILE } from '../src/report/reproduce.ts';
import { testBrowser } from './backends/browser/browser-available.ts';
import { ROOT, runCommand } from './cli/run-memplan.ts';

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
interface Sandbox {
  /** The folder the commands run in, laid out like a clone (see makeSandbox). */
  readonly dir: string;
  /** The token `openssl rand -hex 16` gave the agent the README starts (what its `...` stands for). */
  token(): string;
  /** The newest run folder under results/<experiment>/, relative to `dir`. */
  latestRun(experiment: string): string;
}

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly sandbox: Sandbox;
}

/** How one README command is run here. */
type How =
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
      /** What the command must have done, beyond exit code 0 and no stack trace. */
      readonly check?: (ran: Ran) => void;
    };

const SHARED = resolve(ROOT, '..', 'shared');
const BROWSER = testBrowser('test/readme-commands.test.ts (the browser commands)');

/**
 * The shard of one cell that holds the cell `wanted` picks, as "I/N": the runner's own split
 * over the experiment as the command in the scratch clone reads it (file sources resolve to
 * the clone's paths, which the split's tie-breaking hashes).
 */
async function shardHolding(file: string, wanted: (key: string) => boolean): Promise<string> {
  const experiment = await loadExperiment(file);
  const planners = await Promise.all(experiment.planners.map((entry) => loadPlanner(entry)));
  const cells = await shareableCells(experiment, planners);
  const owner = assignShards(cells, cells.length);
  const k = cells.findIndex((cell) => wanted(cell.key));
  if (k < 0) throw new Error(`${file}: no cell matches; choose another for the README test.`);
  return `${owner[k]}/${cells.length}`;
}

/** A sweep of minutes run as the shard that holds one cheap cell of it, so that it takes seconds, run the same way. */
const oneCell = (experiment: string, cell: RegExp, label: RegExp, minutes: string): How => ({
  run: async (sandbox) => `npx memplan run experiments/${experiment}.json --shard ${await shardHolding(join(sandbox.dir, 'experiments', `${experiment}.json`), (key) => cell.test(key))}`,
  why: `the whole sweep takes ${minutes}; the shard that holds one cheap cell of it`,
  check: (ran) => expect(ran.stderr).toMatch(label),
});

const succeeded = (ran: Ran): void => expect(ran.stdout).not.toBe('');
/** A benchmark wrote its CSV file into MEMPLAN_BENCH_OUT (the scratch folder's), not into bench/out/. */
const benchWrote =
  (file: string) =>
  (ran: Ran): void =>
    expect(existsSync(join(dirname(ran.sandbox.dir), 'bench-out', file))).toBe(true);

const HOW: Record<string, How> = {
  'npm ci': { ci: true },
  'npx memplan reproduce': {
    check: (ran) => {
      // The committed reproduction is canonical: a re-run writes it byte for byte (timings aside).
      const files = (dir: string): string[] =>
        readdirSync(dir)
          .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)).map((f) => join(name, f)) : [name]))
          .filter((f) => f !== 'timings.md')
          .sort();
      const ours = join(ran.sandbox.dir, 'results/paper');
      const committed = join(ROOT, 'results/paper');
      expect(files(ours)).toEqual(files(committed));
      for (const file of files(ours)) {
        expect(readFileSync(join(ours, file)).equals(readFileSync(join(committed, file))), `${file} differs from the committed one: run \`npx memplan reproduce\` and commit`).toBe(true);
      }
    },
  },
  'npm test': { ci: true },
  'npx memplan run experiments/scaling.json': oneCell('scaling', /chain\?n=1000&.*offsets\/greedy-by-size/, /scaling 1\/1 chain-1000 offsets\/greedy-by-size/, 'a minute without ../shared, 5 with it'),
  'npx memplan run experiments/scaling.json --resume': {
    run: async (sandbox) =>
      `npx memplan run experiments/scaling.json --resume --shard ${await shardHolding(join(sandbox.dir, 'experiments/scaling.json'), (key) => /chain\?n=1000&.*offsets\/greedy-by-size/.test(key))}`,
    why: 'the shard the run above ran',
    check: (ran) => expect(ran.stderr).toMatch(/1 cell finished before, kept \(1\/1\)/),
  },
  'npx memplan report results/scaling/<run-id>': {
    run: (sandbox) => `npx memplan report ${sandbox.latestRun('scaling')}`,
    why: '<run-id> is the run above',
    check: (ran) => expect(existsSync(join(ran.sandbox.dir, ran.sandbox.latestRun('scaling'), 'report'))).toBe(true),
  },
  'npx memplan report results/scaling': { check: succeeded },
  'npx memplan report --picture zoo:deeplab-v3 offsets/greedy-by-size offsets/naive': { check: succeeded },
  'for i in 0 1 2 3; do npx memplan run experiments/table2.json --shard $i/4 & done; wait': {},
  // The merge finds all four shards, finished, or fails: it checks the loop above.
  'npx memplan merge results/table2/*-shard-*-of-4 --to results/table2/merged': {
    check: (ran) => expect(existsSync(join(ran.sandbox.dir, 'results/table2/merged/results.jsonl'))).toBe(true),
  },
  'npx memplan report results/table2/merged': { check: succeeded },
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --repetitions 20 --warmup 3': {
    check: (ran) => expect(ran.stdout).toMatch(/^outputs +bit-identical to the naive plan$/m),
  },
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --peer --json': {
    check: (ran) => {
      const report = JSON.parse(ran.stdout) as { matchesNaive: boolean; peer?: { runtime: string }; peers?: { runtime: string; ratio: number; relativeError: number }[] };
      expect(report.matchesNaive).toBe(true);
      expect(report.peer?.runtime).toMatch(/^onnxruntime-node /);
      expect(report.peers?.map((p) => p.runtime.split(' ')[0])).toEqual(['onnxruntime-node', 'onnxruntime-web']);
      // The same network and inputs: outputs agree to float32 rounding.
      for (const peer of report.peers ?? []) expect(peer.relativeError).toBeLessThan(1e-3);
    },
  },
  'npx memplan run experiments/latency-cpu.json': oneCell('latency-cpu', /blazeface.*offsets\/greedy-by-size/, /latency-cpu 1\/1 BlazeFace offsets\/greedy-by-size on cpu/, 'about 10 minutes'),
  'npx memplan run experiments/memory-cpu.json': oneCell('memory-cpu', /blazeface.*offsets\/greedy-by-size/, /memory-cpu 1\/1 BlazeFace offsets\/greedy-by-size on cpu/, 'about 15 minutes'),
  'npx memplan agent --listen 0.0.0.0:7878 --token "$(openssl rand -hex 16)"': { serves: /listening on http:\/\/0\.0\.0\.0:7878/ },
  'npx memplan exec zoo:mobilenet-v2 --backend remote --url http://device:7878 --token ...': {
    run: (sandbox) => `npx memplan exec zoo:mobilenet-v2 --backend remote --url http://127.0.0.1:7878 --token ${sandbox.token()}`,
    why: 'the device is this machine; `...` is the token the agent line made',
    // The agent's own line of the memory report: the job ran there.
    check: (ran) => expect(ran.stdout).toMatch(/^job +[\d.]+ +the job checked/m),
  },
  'npx memplan exec zoo:blazeface --backend browser --planner offsets/greedy-by-size --json': {
    needsBrowser: true,
    check: (ran) => expect((JSON.parse(ran.stdout) as { matchesNaive: boolean }).matchesNaive).toBe(true),
  },
  'npx memplan exec zoo:mobilenet-v2 --backend browser --browser /usr/bin/google-chrome': {
    needsBrowser: true,
    run: `npx memplan exec zoo:mobilenet-v2 --backend browser --browser ${BROWSER ?? 'chromium'} --repetitions 3 --warmup 1`,
    why: "this machine's browser is Chromium, not Chrome; MobileNet v2 on SwiftShader takes 0.3 s a run, so 3 runs, not 10",
    check: succeeded,
  },
  'npx memplan run experiments/latency-browser.json': oneCell('latency-browser', /blazeface.*offsets\/best-of.*webgpu/, /latency-browser 1\/1 BlazeFace offsets\/best-of on webgpu/, '23 minutes'),
  'npx memplan agent --devices --token "$(openssl rand -hex 16)"': { serves: /pairing code [A-Z0-9]+\)/ },
  'adb reverse tcp:7878 tcp:7878': {
    elsewhere: 'test/backends/browser/device-page.test.ts',
    why: 'it needs an Android phone on USB; there a second headless Chromium plays the phone',
  },
  'npx memplan list devices --url http://127.0.0.1:7878 --token ...': {
    run: (sandbox) => `npx memplan list devices --url http://127.0.0.1:7878 --token ${sandbox.token()}`,
    why: '`...` is the token the agent line made',
    check: (ran) => expect(ran.stdout).toMatch(/no device is connected/),
  },
  'npx memplan exec zoo:mobilenet-v2 --backend remote --url http://127.0.0.1:7878 --token ... --device d1': {
    elsewhere: 'test/backends/browser/device-page.test.ts',
    why: 'it needs a phone that has opened the device page; there a second headless Chromium joins as d1 and runs the job',
  },
  'npx memplan export zoo:mobilenet-v2 --planner offsets/greedy-by-size --format perfetto --to plan-trace.json': {
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'plan-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --trace run-trace.json': {
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'run-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
  'npx memplan exec zoo:resnet-152 --budget 35MiB --trace flexnn-trace.json': {
    run: 'npx memplan exec zoo:resnet-152 --budget 35MiB --trace flexnn-trace.json --repetitions 1 --warmup 0',
    why: 'a ResNet-152 inference under a budget takes 2 s here: one, not 10 and 3 warm-ups',
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'flexnn-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
  'npx memplan run examples/first-fit-experiment.json': { check: (ran) => expect(ran.stderr).toMatch(/first-fit/) },
  'npx memplan plan zoo:mobilenet-v2 --planner examples/first-fit.ts --planner offsets/greedy-by-size': {
    check: (ran) => expect(ran.stdout).toMatch(/^offsets\/first-fit +\d+ .* verified$/m),
  },
  'npx memplan plan zoo:deeplab-v3 --approach offsets --element-size 4': { check: succeeded },
  'npx memplan export zoo:mobilenet-v2 --to mobilenet-v2.onnx': {},
  'npx memplan export zoo:mobilenet-v2 --to mobilenet-v2.onnx --no-weights': {},
  'npx memplan export mobilenet-v2.onnx --to records.csv --element-size 4': {
    check: (ran) => expect(readFileSync(join(ran.sandbox.dir, 'records.csv'), 'utf8')).toMatch(/^id,lower,upper,size\n/),
  },
  'npx memplan plan datasets/zoo/mobilenet-v2.csv': { check: succeeded },
  'npx memplan plan datasets/zoo/mobilenet-v2.csv --approach offsets': { check: succeeded },
  'npx memplan plan datasets/zoo/mobilenet-v2.csv --planner offsets/greedy-by-size --align 64 --json': {
    check: (ran) => expect(JSON.parse(ran.stdout)).toHaveProperty('results'),
  },
  'npx memplan list planners': { check: (ran) => expect(ran.stdout).toMatch(/offsets\/greedy-by-size/) },
  'npx memplan plan datasets/zoo/mobilenet-v2.csv --planner offsets/greedy-by-size --align 64 --to plan.csv': {
    check: (ran) => expect(readFileSync(join(ran.sandbox.dir, 'plan.csv'), 'utf8')).toMatch(/^id,lower,upper,size,offset\n/),
  },
  'npx memplan verify plan.csv': { check: (ran) => expect(ran.stdout).toMatch(/valid/) },
  'npx memplan verify plan.csv --align 64 --json': { check: (ran) => expect(JSON.parse(ran.stdout)).toMatchObject({ valid: true }) },
  'npx memplan plan ../shared/traces/minimalloc/C.1048576.csv --planner offsets/exact --time-limit 60 --json': {
    needsShared: true,
    run: `npx memplan plan ${SHARED}/traces/minimalloc/C.1048576.csv --planner offsets/exact --time-limit 60 --json`,
    why: "the scratch clone has no ../shared beside it: the repository's",
    check: (ran) => expect(JSON.parse(ran.stdout)).toHaveProperty('results'),
  },
  'npm run bench': {
    inRepository: true,
    run: 'npm run bench -- --planner offsets/greedy-by-size --instance 1k --runs 1',
    why: 'every planner on every trace takes minutes; one planner on the generated 1k problems, one run each',
    check: benchWrote('planners.csv'),
  },
  'npm run bench:exact': {
    inRepository: true,
    run: 'npm run bench:exact -- --quick --group zoo',
    why: 'its targets take about 20 minutes and its --quick smoke run 3; the smoke run on the zoo group',
    check: benchWrote('exact.csv'),
  },
  'npm run bench:executor': {
    inRepository: true,
    run: 'npm run bench:executor -- --network blazeface --runs 1 --repetitions 1 --warmup 0',
    why: 'the zoo against onnxruntime takes minutes; one network, one run',
    check: benchWrote('executor.csv'),
  },
  'npm run bench:executor-builds -- --against ../other-checkout': {
    inRepository: true,
    run: `npm run bench:executor-builds -- --against ${ROOT} --network blazeface --rounds 1 --repetitions 1 --warmup 0`,
    why: 'the other checkout is this one; one network, one round',
    check: benchWrote('executor-builds.csv'),
  },
  'npm run bench:startup': { inRepository: true, run: 'npm run bench:startup -- --runs 3', why: 'three timed starts of each command (its least), not 15' },
  'npx memplan reproduce --latency': {
    elsewhere: 'test/report/reproduce.test.ts',
    why: 'it measures experiments/latency-cpu.json again (about 10 minutes); there the latency run it names is decided from, and `run experiments/latency-cpu.json` above runs the sweep',
  },
  'npx memplan run experiments/gemm-tiling.json': { run: 'npx memplan run experiments/gemm-tiling.json --quick', why: 'the study takes an hour; --quick is its small grid' },
  'npx memplan run experiments/flexnn-budget.json': {
    elsewhere: 'test/experiments/studies/flexnn-budget.test.ts',
    why: 'the study takes 45 minutes and its --quick 40 s; there it runs on a small network',
  },
  'npx memplan run experiments/parallel-groups.json': {
    elsewhere: 'test/experiments/studies/parallel-groups.test.ts',
    why: 'the study takes about an hour and its --quick 100 s; there it runs on a small network',
  },
  'npx memplan list models': { check: (ran) => expect(ran.stdout).toMatch(/zoo:mobilenet-v2/) },
};

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
 * a clone, without npx's half second; the first command, reproduce, goes through npx itself),
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

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const COMMANDS = readmeCommands(README);

describe("the README's commands, as a user runs them", () => {
  it('has a way to run each command, and no entry for a command the README lacks', () => {
    expect(COMMANDS.filter((command) => HOW[command] === undefined)).toEqual([]);
    expect(Object.keys(HOW).filter((command) => !COMMANDS.includes(command))).toEqual([]);
    for (const [command, how] of Object.entries(HOW)) {
      // A command run otherwise than written says why.
      if ('run' in how && how.run !== undefined) expect(how.why, command).toBeTruthy();
      if ('elsewhere' in how) expect(existsSync(join(ROOT, how.elsewhere)), how.elsewhere).toBe(true);
    }
  });

  it('CI runs the commands marked so, on a clean clone: .ci/run runs npm ci, then npm test', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const lines = ci.split('\n').map((line) => line.trim());
    const install = lines.findIndex((line) => line.startsWith('npm ci'));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('npm test')).toBeGreaterThan(install);
    expect(
      Object.entries(HOW)
        .filter(([, how]) => 'ci' in how)
        .map(([command]) => command),
    ).toEqual(['npm ci', 'npm test']);
  });

  it('finds the commands of a text: sh lines without comments, a && b as two, whole npx commands in prose', () => {
    const text = '```sh\nnpm ci && npx memplan reproduce\nnpx memplan plan x.csv   # a comment\n\n```\nthen `memplan exec` or `npx memplan list models`\n```ts\nnpx no\n```';
    expect(readmeCommands(text)).toEqual(['npm ci', 'npx memplan reproduce', 'npx memplan plan x.csv', 'npx memplan list models']);
  });

  describe.sequential('in a scratch clone', () => {
    const { sandbox, parent } = makeSandbox();
    let server: ChildProcess | undefined;
    afterAll(() => {
      stop(server);
      rmSync(parent, { recursive: true, force: true });
    });
    const hasShared = existsSync(SHARED);
    if (!hasShared) console.warn(`SKIPPED the README's command on ../shared: ${SHARED} is absent.`);

    for (const command of COMMANDS) {
      const how = HOW[command];
      if (how === undefined || 'ci' in how || 'elsewhere' in how) continue;
      const skip = (how.needsShared === true && !hasShared) || (how.needsBrowser === true && BROWSER === undefined);
      it.skipIf(skip)(
        command,
        async () => {
          if (command === 'npx memplan reproduce') expect(await missingChartFonts()).toEqual([]);
          const text = typeof how.run === 'function' ? await how.run(sandbox) : (how.run ?? command);
          const args = bashFor(parent, text, command === 'npx memplan reproduce');
          const cwd = how.inRepository === true ? ROOT : sandbox.dir;
          if (how.serves !== undefined) {
            stop(server);
            server = await serve(args, cwd, { ...process.env, NO_COLOR: '1', ...envFor(parent) }, how.serves);
            return;
          }
          const ran = await runCommand('bash', args, envFor(parent), cwd);
          expect(ran.status, `${text}\n--- stderr ---\n${ran.stderr}`).toBe(0);
          expect(ran.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
          how.check?.({ ...ran, sandbox });
        },
        120_000,
      );
    }
  });
});
