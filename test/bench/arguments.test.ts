// The command-line tools beside memplan (npm run bench*, scripts/): their argument checks.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT, runCommand, runNode } from '../cli/run-memplan.ts';

/** The benchmarks refuse what they cannot do with one sentence (and their usage), exit code 2, before benchmarking anything. */
const bench = (script: string, ...args: string[]) => runNode('--import', 'tsx', script, ...args);

describe('npm run bench: bad arguments', () => {
  it.concurrent.each([
    [['--traces', '/no/such/folder'], 'bench: --traces /no/such/folder holds none of minimalloc, omnimalloc-small, idealloc.'],
    [['--runs', '0'], 'bench: --runs must be a whole number >= 1, got "0".'],
    [['--planner', 'no-such-planner'], 'bench: no planner id contains "no-such-planner".'],
  ])('%j', async (args, sentence) => {
    const run = await bench('bench/planners.bench.ts', ...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(sentence);
    expect(run.stderr).toMatch(/^usage: npm run bench -- /m);
  });
});

describe('npm run bench:exact, bench:gemm, bench:executor, bench:startup, bench:operators and bench:webgpu: bad arguments', () => {
  it.concurrent.each([
    ['bench/exact.bench.ts', ['--traces', '/no/such/folder'], 'bench:exact: --traces /no/such/folder holds none of minimalloc, idealloc, omnimalloc-small.'],
    ['bench/gemm-kernel.bench.ts', ['-n', '1024'], 'bench:gemm: unknown arguments "-n 1024".'],
    ['bench/gemm-kernel.bench.ts', ['--n', '100'], 'bench:gemm: --n must be a multiple of 32 from 64, got 100.'],
    ['bench/executor.bench.ts', ['--network', 'no-such-network'], 'bench:executor: no zoo network matches no-such-network.'],
    ['bench/executor.bench.ts', ['--repetitions', '0'], 'bench:executor: --repetitions must be a whole number >= 1, got 0.'],
    ['bench/executor.bench.ts', ['--fast'], 'bench:executor: unknown argument "--fast".'],
    ['bench/executor.bench.ts', ['--warmup'], 'bench:executor: --warmup needs a value.'],
    ['bench/executor.bench.ts', ['--runs', '0'], 'bench:executor: --runs must be a whole number >= 1, got 0.'],
    // --onnx takes no value: the pairs after it still parse.
    ['bench/executor.bench.ts', ['--onnx', '--runs', '0'], 'bench:executor: --runs must be a whole number >= 1, got 0.'],
    ['bench/executor.bench.ts', ['--warmup', '-1'], 'bench:executor: --warmup must be a whole number >= 0, got -1.'],
    ['bench/startup.bench.ts', ['--runs', '2'], 'bench:startup: --runs must be a whole number of at least 3, got 2.'],
    ['bench/startup.bench.ts', ['--fast'], 'bench:startup: unknown arguments "--fast".'],
    ['bench/operators.bench.ts', ['--warmup', '-1'], 'bench:operators: --warmup takes a whole number of at least 0, got -1.'],
    ['bench/webgpu.bench.ts', ['--repetitions', '0'], 'bench:webgpu: --repetitions takes a whole number of at least 1, got 0.'],
    ['bench/webgpu.bench.ts', ['--fast'], 'bench:webgpu: unknown argument "--fast".'],
  ])('%s %j', async (script, args, sentence) => {
    const run = await bench(script, ...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(sentence);
  });
});

describe('npm run bench:webgpu where there is no adapter', () => {
  it('says so in one sentence of its own, naming the driver it tried, and exits 1 before benchmarking anything', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'bench/webgpu.bench.ts', '--quick'], { MEMPLAN_VULKAN_ICD: '/no/such/icd.json' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    // Above it, the Vulkan loader's and Dawn's own warnings.
    const ours = run.stderr.split('\n').filter((line) => line.startsWith('bench:webgpu: '));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/^bench:webgpu: no WebGPU adapter is available \(Vulkan drivers tried: \/no\/such\/icd\.json \(MEMPLAN_VULKAN_ICD\)\)/);
  });
});

describe('the scripts: bad arguments', () => {
  it.concurrent.each([
    ['scripts/write-planted-suite.ts', ['--seeds', 'x'], 'write-planted-suite: --seeds takes whole numbers >= 0, separated by commas, got "x".'],
    ['scripts/write-planted-suite.ts', ['--out', 'package.json'], `write-planted-suite: --out ${join(ROOT, 'package.json')} is a file, not a folder.`],
    ['scripts/write-datasets.ts', ['--all'], 'write-datasets: takes no arguments, got "--all".'],
  ])('%s %j', async (script, args, sentence) => {
    const run = await bench(script, ...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(sentence);
  });
});
