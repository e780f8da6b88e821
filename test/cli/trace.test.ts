import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { cpuParallelBackend } from '../../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { executionRecords } from '../../src/backends/execution-records.ts';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { graphToProblem, plannedProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplanHere, userErrorLine } from './run-memplan.ts';
import { webgpuAvailable } from '../backends/webgpu/adapter.ts';
import { webgpuBackend } from '../../src/backends/webgpu/webgpu-backend.ts';

const gpu = await webgpuAvailable('test/cli/trace.test.ts (the WebGPU trace)');

interface Event {
  name: string;
  ph: string;
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-trace-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readTrace(file: string): Promise<{ events: Event[]; threads: Map<number, string>; otherData: Record<string, unknown> }> {
  const trace = JSON.parse(await readFile(file, 'utf8')) as { traceEvents: Event[]; otherData: Record<string, unknown> };
  expect(Array.isArray(trace.traceEvents)).toBe(true);
  for (const e of trace.traceEvents) {
    expect(typeof e.name).toBe('string');
    expect(Number.isInteger(e.pid)).toBe(true);
    if (e.ph === 'X') expect(Number.isFinite(e.ts) && (e.dur as number) >= 0 && Number.isInteger(e.tid)).toBe(true);
  }
  const threads = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid as number, String(e.args?.name)]));
  return { events: trace.traceEvents, threads, otherData: trace.otherData };
}

const end = (e: Event): number => (e.ts as number) + (e.dur as number);
// Slices are in microseconds rounded to a nanosecond: allow that much where two times meet.
const EPS = 0.002;

describe.concurrent('traces', () => {
  it('exec --trace: every operator once on the compute track, in order, with the live bytes of its step', async ({ expect }) => {
    const file = join(dir, 'cpu.json');
    const run = await memplanHere('exec', 'zoo:blazeface', '--planner', 'offsets/greedy-by-size', '--repetitions', '2', '--warmup', '1', '--trace', file, '--json');
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.timeline).toBeUndefined();
    const { events, threads, otherData } = await readTrace(file);
    expect([...threads.values()]).toEqual(['compute']);
    // The graph the CPU executor runs, and its records (its kernels' scratch, its activations fused).
    const { graph, problem } = plannedProblem(buildZooModel('zoo:blazeface'), executionRecords(cpuBackend));
    const order = executionOrder(graph);
    const slices = events.filter((e) => e.ph === 'X');
    expect(slices.map((s) => s.name)).toEqual(order.map((n) => n.name));
    expect(slices.map((s) => s.cat)).toEqual(order.map((n) => n.op));
    for (let k = 1; k < slices.length; k++) expect(slices[k].ts as number).toBeGreaterThanOrEqual(end(slices[k - 1]) - EPS);
    const live = events.filter((e) => e.ph === 'C' && e.name === 'live bytes');
    expect(live).toHaveLength(problem.operatorCount);
    live.forEach((point, step) => {
      const bytes = problem.records.filter((r) => r.first <= step && step <= r.last).reduce((sum, r) => sum + r.size, 0);
      expect(point.args?.bytes).toBe(bytes);
      expect(point.ts).toBe(slices[step].ts);
    });
    expect(otherData).toMatchObject({ planner: 'offsets/greedy-by-size', backend: 'cpu', footprint: report.footprint, operators: order.length });
  });

  it('exec --trace on the worker pool: a track per worker, every operator once, no step starting before the one before it ended', async ({ expect }) => {
    const file = join(dir, 'pool.json');
    const run = await memplanHere('exec', 'zoo:blazeface', '--schedule', 'levels', '--workers', '2', '--repetitions', '1', '--warmup', '0', '--trace', file);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/wrote .*pool\.json: \d+ slices on [12] thread tracks?/);
    const { events, threads } = await readTrace(file);
    for (const name of threads.values()) expect(name).toMatch(/^worker [12]$/);
    const slices = events.filter((e) => e.ph === 'X');
    const { graph, steps } = plannedProblem(buildZooModel('zoo:blazeface'), executionRecords(cpuParallelBackend, { schedule: 'levels' }));
    expect(slices.map((s) => s.name).sort()).toEqual(graph.nodes.map((n) => n.name).sort());
    for (let step = 1; step < steps.length; step++) {
      const before = slices.filter((s) => s.args?.step === step - 1);
      const now = slices.filter((s) => s.args?.step === step);
      expect(now).toHaveLength(steps[step].length);
      expect(Math.min(...now.map((s) => s.ts as number))).toBeGreaterThanOrEqual(Math.max(...before.map(end)) - EPS);
    }
  });

  it('exec --budget --trace: compute and loader tracks; every layer starts after the loads of its weights ended', async ({ expect }) => {
    const file = join(dir, 'budgeted.json');
    const run = await memplanHere('exec', 'zoo:mobilenet-v1?input=96', '--budget', '6MiB', '--repetitions', '1', '--warmup', '0', '--trace', file, '--json');
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: 'budgeted', matchesUnbudgeted: true });
    const { events, threads } = await readTrace(file);
    expect([...threads.values()].sort()).toEqual(['compute', 'loader']);
    const tid = (name: string): number => [...threads].find(([, n]) => n === name)![0];
    const computes = events.filter((e) => e.ph === 'X' && e.tid === tid('compute'));
    const loads = events.filter((e) => e.ph === 'X' && e.tid === tid('loader'));
    expect(loads.length).toBeGreaterThan(0);
    for (const load of loads) {
      expect(load.cat).toBe('load');
      expect(load.args?.bytes as number).toBeGreaterThan(0);
      const layer = computes.find((c) => c.args?.step === load.args?.forStep)!;
      expect(layer.ts as number).toBeGreaterThanOrEqual(end(load) - EPS);
    }
  });

  it('export --format perfetto: one slice per tensor over its lifetime at its planned offset', async ({ expect }) => {
    const file = join(dir, 'plan.json');
    const [exported, planned] = await Promise.all([
      memplanHere('export', 'zoo:blazeface', '--planner', 'offsets/greedy-by-size', '--format', 'perfetto', '--to', file),
      memplanHere('plan', 'zoo:blazeface', '--planner', 'offsets/greedy-by-size', '--json'),
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout).results[0] as { offsets: number[]; footprint: number };
    const { events, otherData } = await readTrace(file);
    const slices = events.filter((e) => e.ph === 'X');
    expect(slices).toHaveLength(plan.offsets.length);
    expect(otherData.footprint).toBe(plan.footprint);
    const problem = graphToProblem(buildZooModel('zoo:blazeface'), { elementSize: 4 });
    for (const slice of slices) {
      const i = problem.records.findIndex((r) => r.id === slice.name);
      expect(slice.args?.offset).toBe(plan.offsets[i]);
      expect([slice.ts, slice.dur]).toEqual([problem.records[i].first, problem.records[i].last - problem.records[i].first + 1]);
    }
  });

  it('export --format perfetto --align 0, -8, 1e20, 3, 1.5: exit 2, one line, as plan --align (issue 38)', async ({ expect }) => {
    const values = ['0', '-8', '1e20', '3', '1.5'];
    const runs = await Promise.all(
      values.map((value) =>
        memplanHere('export', 'examples/paper-example.json', '--planner', 'offsets/greedy-by-size', '--format', 'perfetto', '--to', join(dir, `align-${value}.json`), `--align=${value}`),
      ),
    );
    runs.forEach((run, k) => {
      expect(userErrorLine(run)).toBe(`memplan: --align must be a power of two of bytes from 1 to 2^52 (1, 4, 64, 256...), got ${Number(values[k])}.`);
    });
  });

  it('export --format perfetto of sizes adding up past 2^53, or of 2^53 operator steps: exit 2, one line naming the file', async ({ expect }) => {
    const huge = join(dir, 'huge.csv');
    const wide = join(dir, 'wide.csv');
    await writeFile(huge, `id,lower,upper,size\na,0,2,${2 ** 53 - 1}\nb,1,3,${2 ** 53 - 1}\nc,0,3,${2 ** 52}\n`);
    await writeFile(wide, `id,lower,upper,size\na,0,${2 ** 53 - 1},10\nb,1,3,20\n`);
    const trace = (source: string) => memplanHere('export', source, '--planner', 'offsets/greedy-by-size', '--format', 'perfetto', '--to', join(dir, 'refused.json'));
    const [hugeRun, wideRun] = await Promise.all([trace(huge), trace(wide)]);
    expect(userErrorLine(hugeRun)).toMatch(new RegExp(`^memplan: ${huge}:3: size 9007199254740991 brings the sum of the sizes past 2\\^53 - 1 bytes`));
    expect(userErrorLine(wideRun)).toBe(`memplan: ${wide}: its records span 9007199254740991 operator steps; a plan trace draws the live bytes of every step and holds at most 1000000.`);
  });

  it('refuses a trace where no operator can be timed, in one line', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:blazeface', '--backend', 'browser', '--trace', join(dir, 'page.json'));
    expect(userErrorLine(run)).toMatch(/--trace times the operators of the cpu, cpu-parallel, webgpu, budgeted backends; the browser backend cannot/);
  });

  it.skipIf(!gpu)("exec --backend webgpu --trace: every operator once on the device's track, in order", async ({ expect }) => {
    const file = join(dir, 'gpu.json');
    const run = await memplanHere('exec', 'zoo:blazeface', '--backend', 'webgpu', '--repetitions', '1', '--warmup', '0', '--trace', file);
    expect(run.status, run.stderr).toBe(0);
    const { events, threads } = await readTrace(file);
    expect([...threads.values()]).toEqual(['device']);
    const order = executionOrder(plannedProblem(buildZooModel('zoo:blazeface'), executionRecords(webgpuBackend)).graph);
    expect(events.filter((e) => e.ph === 'X').map((s) => s.name)).toEqual(order.map((n) => n.name));
  });
});
