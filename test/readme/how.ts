// How each README command is run (test/readme/commands.ts runs them), by group: each group
// is one test file with a scratch clone of its own, so that the groups share the cores.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { loadExperiment } from '../../src/experiments/config.ts';
import { loadPlanner } from '../../src/experiments/load-planner.ts';
import { shareableCells } from '../../src/experiments/runner.ts';
import { assignShards } from '../../src/experiments/shards.ts';
import { missingChartFonts } from '../../src/report/charts/render.ts';
import { ROOT } from '../cli/run-memplan.ts';
import { type How, type Ran, SHARED, THIS_BROWSER } from './commands.ts';

/**
 * The shard of one cell that holds the cell `wanted` picks, as "I/N": the runner's own split
 * over the experiment as the command in the scratch clone reads it.
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

export const CI: Readonly<Record<string, How>> = {
  'npm ci': { ci: true },
  'npm test': { ci: true },
};

export const ELSEWHERE: Readonly<Record<string, How>> = {
  'adb reverse tcp:7878 tcp:7878': {
    elsewhere: 'test/backends/browser/device-page.test.ts',
    why: 'it needs an Android phone on USB; there a second headless Chromium plays the phone',
  },
  'npx memplan exec zoo:mobilenet-v2 --backend remote --url http://127.0.0.1:7878 --token ... --device d1': {
    elsewhere: 'test/backends/browser/device-page.test.ts',
    why: 'it needs a phone that has opened the device page; there a second headless Chromium joins as d1 and runs the job',
  },
  'npx memplan reproduce --latency': {
    elsewhere: 'test/report/reproduce.test.ts',
    why: 'it measures experiments/latency-cpu.json again (about 5 minutes: three turns of each plan); there the latency run it names is decided from, and `run experiments/latency-cpu.json` above runs the sweep',
  },
  'npx memplan run experiments/flexnn-budget.json': {
    elsewhere: 'test/experiments/studies/flexnn-budget.test.ts',
    why: 'the study takes 45 minutes and its --quick 40 s; there it runs on a small network',
  },
  'npx memplan run experiments/parallel-groups.json': {
    elsewhere: 'test/experiments/studies/parallel-groups.test.ts',
    why: 'the study takes about an hour and its --quick 100 s; there it runs on a small network',
  },
};

export const REPRODUCE: Readonly<Record<string, How>> = {
  'npx memplan reproduce': {
    viaNpx: true,
    check: async (ran) => {
      expect(await missingChartFonts()).toEqual([]);
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
};

/** The scaling sweep's cell its README commands run (and resume): one planner on the 1000-record chain. */
const SCALING_CELL = /chain\?n=1000&.*offsets\/greedy-by-size/;

export const EXPERIMENTS: Readonly<Record<string, How>> = {
  'npx memplan run experiments/scaling.json': oneCell('scaling', SCALING_CELL, /scaling 1\/1 chain-1000 offsets\/greedy-by-size/, 'a minute without ../shared, 5 with it'),
  'npx memplan run experiments/scaling.json --resume': {
    run: async (sandbox) => `npx memplan run experiments/scaling.json --resume --shard ${await shardHolding(join(sandbox.dir, 'experiments/scaling.json'), (key) => SCALING_CELL.test(key))}`,
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
  'npx memplan run experiments/latency-cpu.json': oneCell('latency-cpu', /blazeface.*offsets\/greedy-by-size/, /latency-cpu 1\/1 BlazeFace offsets\/greedy-by-size on cpu/, 'about 5 minutes'),
  'npx memplan run experiments/memory-cpu.json': oneCell('memory-cpu', /blazeface.*offsets\/greedy-by-size/, /memory-cpu 1\/1 BlazeFace offsets\/greedy-by-size on cpu/, 'about 15 minutes'),
  'npx memplan run experiments/gemm-tiling.json': { run: 'npx memplan run experiments/gemm-tiling.json --quick', why: 'the study takes an hour; --quick is its small grid' },
};

export const EXECUTION: Readonly<Record<string, How>> = {
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --repetitions 20 --warmup 3': {
    check: (ran) => expect(ran.stdout).toMatch(/^outputs +bit-identical to the naive plan$/m),
  },
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --peer --json': {
    run: 'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --peer --json --repetitions 3 --warmup 1',
    why: 'three timed inferences of ours and of each peer, not ten: the test reads the report, not the timings',
    check: (ran) => {
      const report = JSON.parse(ran.stdout) as { matchesNaive: boolean; peer?: { runtime: string }; peers?: { runtime: string; ratio: number; relativeError: number }[] };
      expect(report.matchesNaive).toBe(true);
      expect(report.peer?.runtime).toMatch(/^onnxruntime-node /);
      expect(report.peers?.map((p) => p.runtime.split(' ')[0])).toEqual(['onnxruntime-node', 'onnxruntime-web']);
      // The same network and inputs: outputs agree to float32 rounding.
      for (const peer of report.peers ?? []) expect(peer.relativeError).toBeLessThan(1e-3);
    },
  },
  'npx memplan exec zoo:inception-v3 --threads 2 --peer': {
    run: 'npx memplan exec zoo:blazeface --threads 2 --peer --repetitions 2 --warmup 1',
    why: "Inception v3's 95 MiB of weights, exported for both peers, take 25 s here; BlazeFace, two inferences each",
    check: (ran) => {
      expect(ran.stdout).toMatch(/^backend +cpu-parallel /m);
      expect(ran.stdout).toMatch(/^outputs +bit-identical to the naive plan$/m);
      // The peers run at our number of threads.
      expect(ran.stdout).toMatch(/^peer +onnxruntime-node [\d.]+ \(2 threads\): /m);
      expect(ran.stdout).toMatch(/^peer +onnxruntime-web [\d.]+ \(WebAssembly, 2 threads\): /m);
    },
  },
  'npx memplan agent --listen 0.0.0.0:7878 --token "$(openssl rand -hex 16)"': { serves: /listening on http:\/\/0\.0\.0\.0:7878/ },
  'npx memplan exec zoo:mobilenet-v2 --backend remote --url http://device:7878 --token ...': {
    run: (sandbox) => `npx memplan exec zoo:mobilenet-v2 --backend remote --url http://127.0.0.1:7878 --token ${sandbox.token()}`,
    why: 'the device is this machine; `...` is the token the agent line made',
    // The agent's own line of the memory report: the job ran there.
    check: (ran) => expect(ran.stdout).toMatch(/^job +[\d.]+ +the job checked/m),
  },
  'npx memplan agent --devices --token "$(openssl rand -hex 16)"': { serves: /pairing code [A-Z0-9]+\)/ },
  'npx memplan list devices --url http://127.0.0.1:7878 --token ...': {
    run: (sandbox) => `npx memplan list devices --url http://127.0.0.1:7878 --token ${sandbox.token()}`,
    why: '`...` is the token the agent line made',
    check: (ran) => expect(ran.stdout).toMatch(/no device is connected/),
  },
  'npx memplan export zoo:mobilenet-v2 --planner offsets/greedy-by-size --format perfetto --to plan-trace.json': {
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'plan-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
  'npx memplan exec zoo:mobilenet-v2 --planner offsets/greedy-by-size --trace run-trace.json': {
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'run-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
  'npx memplan exec zoo:resnet-152 --budget 35MiB --trace flexnn-trace.json': {
    run: 'npx memplan exec zoo:mobilenet-v2 --budget 12MiB --trace flexnn-trace.json --repetitions 1 --warmup 0',
    why: "ResNet-152's 308 MiB of weights are made, transformed and written to a file before it runs (14 s of CPU here); MobileNet v2 at the FlexNN study's tightest budget for it, one inference, not 10 and 3 warm-ups",
    check: (ran) => expect(JSON.parse(readFileSync(join(ran.sandbox.dir, 'flexnn-trace.json'), 'utf8'))).toHaveProperty('traceEvents'),
  },
};

export const BROWSER: Readonly<Record<string, How>> = {
  'npx memplan exec zoo:blazeface --backend browser --planner offsets/greedy-by-size --json': {
    needsBrowser: true,
    check: (ran) => expect((JSON.parse(ran.stdout) as { matchesNaive: boolean }).matchesNaive).toBe(true),
  },
  'npx memplan exec zoo:mobilenet-v2 --backend browser --browser /usr/bin/google-chrome': {
    needsBrowser: true,
    run: `npx memplan exec zoo:blazeface --backend browser --browser ${THIS_BROWSER ?? 'chromium'} --repetitions 3 --warmup 1`,
    why: "this machine's browser is Chromium, not Chrome; what the line shows is --browser: on BlazeFace (the line above runs a network in the browser too), 3 runs, not 10",
    check: succeeded,
  },
  'npx memplan run experiments/latency-browser.json': oneCell('latency-browser', /blazeface.*offsets\/best-of.*webgpu/, /latency-browser 1\/1 BlazeFace offsets\/best-of on webgpu/, '23 minutes'),
};

export const PLANNING: Readonly<Record<string, How>> = {
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
  'npx memplan list models': { check: (ran) => expect(ran.stdout).toMatch(/zoo:mobilenet-v2/) },
};

export const BENCH: Readonly<Record<string, How>> = {
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
  'npm run bench:threads': {
    inRepository: true,
    run: 'npm run bench:threads -- --network blazeface --rounds 1 --repetitions 1 --warmup 0',
    why: 'Inception v3 for three rounds takes a minute; BlazeFace, one round of one inference',
    check: (ran) => expect(ran.stdout).toMatch(/^Outputs of both runs bit-identical to the unsplit network's: yes\.$/m),
  },
  'npm run bench:gemm': {
    inRepository: true,
    run: 'npm run bench:gemm -- --n 256',
    why: 'the kernels up to n = 4096 take a minute; n = 256',
    check: (ran) => expect(ran.stdout).toMatch(/^\| relaxed SIMD \(fused multiply-add\) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$/m),
  },
  'npm run bench:operators': {
    inRepository: true,
    run: 'npm run bench:operators -- --quick --repetitions 2 --warmup 1',
    why: 'nine operators of ten runs each way take a quarter of a minute; two operators, two runs',
    check: (ran) => {
      const row = /^\| BlazeFace 3x3 depthwise \| 64x64x24 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.e+-]+) \|$/m.exec(ran.stdout);
      expect(row, ran.stdout).not.toBeNull();
      // The executor's depthwise convolution agrees with onnxruntime's to float32 rounding.
      expect(Number(row?.[1])).toBeLessThan(1e-5);
    },
  },
  'npm run bench:webgpu': {
    inRepository: true,
    needsWebGpu: true,
    run: 'npm run bench:webgpu -- --quick --repetitions 2 --warmup 1',
    why: 'nine operators of ten runs take half a minute on a software adapter; two operators, two runs',
    check: (ran) => {
      const row = /^\| BlazeFace 1x1 convolution \| 64x64x24 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.e+-]+) \|$/m.exec(ran.stdout);
      expect(row, ran.stdout).not.toBeNull();
      // Both backends compute the same convolution, to float32 rounding.
      expect(Number(row?.[1])).toBeLessThan(1e-4);
    },
  },
  'npm run bench:conv': {
    inRepository: true,
    run: 'npm run bench:conv -- --quick --repetitions 2 --warmup 1',
    why: 'five layers of ten runs take a few seconds more; one layer, two runs',
    check: (ran) => {
      const row = /^\| SqueezeNet fire2\/expand3x3 \| 55x55x16 -> 64 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.e+-]+) \|$/m.exec(ran.stdout);
      expect(row, ran.stdout).not.toBeNull();
      // The executor's Winograd outputs agree with onnxruntime's to float32 rounding.
      expect(Number(row?.[1])).toBeLessThan(1e-5);
    },
  },
};

/** Every group, the ones run here and the ones run by CI or another test. */
export const GROUPS = { ci: CI, elsewhere: ELSEWHERE, reproduce: REPRODUCE, experiments: EXPERIMENTS, execution: EXECUTION, browser: BROWSER, planning: PLANNING, bench: BENCH };
