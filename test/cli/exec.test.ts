import { cpuParallelBackend } from '../../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { executionRecords } from '../../src/backends/execution-records.ts';
import { availableParallelism } from 'node:os';
import { describe, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import { graphToProblem, plannedProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplanHere, userErrorLine } from './run-memplan.ts';

describe.concurrent('memplan exec', () => {
  it('--json prints latency, footprint, memory measured in an isolated process and the proof against naive', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:blazeface', '--planner', 'offsets/greedy-by-size', '--repetitions', '3', '--warmup', '1', '--json');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual(['backend', 'device', 'footprint', 'latencyMs', 'matchesNaive', 'memory', 'peakRssBytes', 'planner']);
    expect(Object.keys(report.memory).sort()).toEqual(['baselineRss', 'intermediates', 'io', 'job', 'method', 'peakRss', 'peakRssDelta', 'planned', 'rest', 'runtime', 'scratch', 'weights']);
    expect(report.memory.planned).toBe(report.footprint);
    expect(report.memory.intermediates).toBe(report.footprint);
    expect(report.memory.peakRssDelta).toBe(report.memory.peakRss - report.memory.baselineRss);
    expect(report.peakRssBytes).toBe(report.memory.peakRss);
    expect(report.memory.method).toMatch(/isolated process/);
    expect(report).toMatchObject({ backend: 'cpu', planner: 'offsets/greedy-by-size', matchesNaive: true });
    expect(Object.keys(report.latencyMs).sort()).toEqual(['ci95', 'max', 'mean', 'median', 'min', 'p90', 'runs', 'sd']);
    const bound = lowerBounds(graphToProblem(buildZooModel('zoo:blazeface'), { elementSize: 4 })).offsets;
    expect(report.footprint).toBeGreaterThanOrEqual(bound);
  });

  it('refuses what it cannot run, in one line', async ({ expect }) => {
    const [records, backend, peers] = await Promise.all([
      memplanHere('exec', 'examples/paper-example.json'),
      memplanHere('exec', 'zoo:blazeface', '--backend', 'tpu'),
      memplanHere('exec', 'zoo:blazeface', '--peers', 'native'),
    ]);
    expect(userErrorLine(records)).toMatch(/holds usage records, not a network/);
    expect(userErrorLine(backend)).toMatch(/unknown backend "tpu"; available: cpu/);
    expect(userErrorLine(peers)).toBe('memplan: --peers takes node, web or node,web, got "native".');
  });

  it('--schedule groups:2 --workers 2 runs on the worker pool: outputs bit-identical to the sequential naive run, per-step timings', async ({ expect }) => {
    const [human, json] = await Promise.all([
      memplanHere('exec', 'zoo:resnext-50-paths?input=32', '--schedule', 'groups:2', '--workers', '2', '--repetitions', '2', '--warmup', '0'),
      memplanHere('exec', 'zoo:blazeface', '--schedule', 'levels', '--workers', '2', '--repetitions', '3', '--warmup', '1', '--json'),
    ]);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^backend +cpu-parallel /m);
    expect(human.stdout).toMatch(/^outputs +bit-identical to the naive plan$/m);
    const steps = plannedProblem(buildZooModel('zoo:resnext-50-paths?input=32'), { schedule: 'groups:2' }).steps;
    expect(human.stdout).toMatch(new RegExp(`^parallel +2 workers, ${steps.length} steps \\(${Math.max(...steps.map((s) => s.length))} operators in the largest\\)`, 'm'));
    const timings = human.stdout.split('\n').filter((line) => /^ +\d+ +\d+\.\d\d \[\d+\]/.test(line));
    expect(timings).toHaveLength(Math.ceil(steps.length / 8));
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ backend: 'cpu-parallel', matchesNaive: true });
    const stepCount = plannedProblem(buildZooModel('zoo:blazeface'), executionRecords(cpuParallelBackend, { schedule: 'levels' })).steps.length;
    expect(report.parallel).toMatchObject({ workers: 2, steps: stepCount });
    expect(report.parallel.stepMs).toHaveLength(stepCount);
    expect(report.parallel.busyFraction).toBeGreaterThan(0);
    expect(report.parallel.busyFraction).toBeLessThanOrEqual(1);
    expect(report.memory.weights).toBeGreaterThan(0);
  });

  it('refuses workers and alignments it cannot use, in one line', async ({ expect }) => {
    const [zero, webgpu, many] = await Promise.all([
      memplanHere('exec', 'zoo:blazeface', '--workers', '0'),
      memplanHere('exec', 'zoo:blazeface', '--backend', 'webgpu', '--workers', '2'),
      memplanHere('exec', 'zoo:blazeface', '--workers', '100000'),
    ]);
    expect(userErrorLine(zero)).toMatch(/--workers must be a whole number >= 1, got 0\./);
    const [odd, small] = await Promise.all([memplanHere('exec', 'zoo:blazeface', '--align', '3'), memplanHere('exec', 'zoo:blazeface', '--align', '2')]);
    expect(userErrorLine(odd)).toBe('memplan: --align must be a power of two of bytes from 1 to 2^52 (1, 4, 64, 256...), got 3.');
    expect(userErrorLine(small)).toBe('memplan: exec runs float32 tensors: --align must be at least 4 bytes, got 2.');
    expect(userErrorLine(many)).toBe(`memplan: --workers 100000 is more than this machine's ${availableParallelism()} cores; the cpu-parallel backend runs at most one worker per core.`);
    expect(userErrorLine(webgpu)).toMatch(/--workers sets the threads of the cpu-parallel backend; --backend webgpu has none\./);
  });

  it('refuses threads it cannot split operators over, in one line', async ({ expect }) => {
    const [zero, many, webgpu, budget] = await Promise.all([
      memplanHere('exec', 'zoo:blazeface', '--threads', '0'),
      memplanHere('exec', 'zoo:blazeface', '--threads', '100000'),
      memplanHere('exec', 'zoo:blazeface', '--backend', 'webgpu', '--threads', '2'),
      memplanHere('exec', 'zoo:blazeface', '--budget', '4MiB', '--threads', '2'),
    ]);
    expect(userErrorLine(zero)).toBe('memplan: --threads must be a whole number >= 1, got 0.');
    expect(userErrorLine(many)).toBe(`memplan: --threads 100000 is more than this machine's ${availableParallelism()} cores; an operator is split over at most one thread per core.`);
    expect(userErrorLine(webgpu)).toBe('memplan: --threads splits operators on the cpu and cpu-parallel backends; --backend webgpu does not.');
    expect(userErrorLine(budget)).toBe('memplan: the budgeted backend runs one compute thread and no peer; --threads does not apply.');
  });

  it('prints the memory figures as one block of MiB, said to be measured in an isolated process', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:blazeface', '--repetitions', '2', '--warmup', '0');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^memory +measured in an isolated process that ran this plan alone/m);
    for (const figure of ['planned', 'intermediates', 'io', 'weights', 'scratch', 'baseline RSS', 'peak RSS', 'peak - base', 'rest']) {
      expect(run.stdout).toMatch(new RegExp(`^${figure} +-?\\d+\\.\\d{3} `, 'm'));
    }
  });
});
