import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import type { PreparedNetwork, WeightReads } from '../../../src/backends/backend.ts';
import { budgetedBackend } from '../../../src/backends/budgeted/budgeted-backend.ts';
import type { Loading } from '../../../src/backends/budgeted/load-schedule.ts';
import { WeightsFile } from '../../../src/backends/budgeted/weights-file.ts';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { directIoWorks } from '../../../src/backends/gemm/matrix-files.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import { budgetedNetwork, type BudgetedNetwork } from '../../../src/graph/budget-records.ts';
import { executionOrder } from '../../../src/graph/execution-order.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { toNchw } from '../../../src/graph/to-nchw.ts';
import { planAndVerify, type VerifiedResult } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { everyPathNetwork } from './networks.ts';

const graph = weightedGraph(everyPathNetwork(), 'seeded', 7);
const inputs = seededInputs(graph, 7);
const files: WeightsFile[] = [];
afterAll(() => files.forEach((f) => f.dispose()));

async function unbudgeted(): Promise<Map<string, Float32Array>> {
  const { graph: planned, problem } = plannedProblem(graph, { elementSize: 4, scratch: true });
  const prepared = await cpuBackend.prepare({ graph: planned, problem, plan: planAndVerify(findPlanner('shared-objects/naive'), problem) });
  return new Map([...(await prepared.infer(inputs))].map(([n, v]) => [n, v.slice()]));
}

interface Run {
  readonly network: BudgetedNetwork;
  readonly plan: VerifiedResult;
  readonly prepared: PreparedNetwork;
  readonly outputs: Map<string, Float32Array>;
}

async function runBudgeted(planner: string, budget: number | undefined, loading: Loading, reads?: WeightReads): Promise<Run> {
  const network = budgetedNetwork(graph, budget === undefined ? {} : { budget });
  const plan = planAndVerify(findPlanner(planner), network.problem, { alignment: 64 });
  expect(plan.valid).toBe(true);
  const file = new WeightsFile(network, network.graph);
  files.push(file);
  const prepared = await budgetedBackend.prepare({
    graph: network.graph,
    problem: network.problem,
    plan,
    streaming: { weightsFile: file.path, loading, bufferBytes: budget ?? plan.footprint, trace: true, ...(reads ? { reads } : {}) },
  });
  let outputs = new Map<string, Float32Array>();
  for (let k = 0; k < 3; k++) outputs = new Map([...(await prepared.infer(inputs))].map(([n, v]) => [n, v.slice()]));
  return { network, plan, prepared, outputs };
}

/**
 * FlexNN's two dependencies, checked on the recorded order: a layer computes after its
 * weights are loaded, and a load that overwrites bytes some layer uses runs after that
 * layer when the layer comes before the weight's load step (and before it otherwise).
 */
function outOfOrder(run: Run): string[] {
  const { network, plan, prepared } = run;
  const { records } = network.problem;
  const trace = prepared.streamingStats!().trace!;
  const index = new Map(records.map((r, i) => [r.id, i]));
  const order = executionOrder(network.graph);
  const touched = order.map((node) => [...node.inputs, ...node.outputs, `${node.name}@weights`, `${node.name}@scratch`].flatMap((id) => (index.has(id) ? [index.get(id) as number] : [])));
  const overlaps = (a: number, b: number): boolean => plan.offsets[a] < plan.offsets[b] + records[b].size && plan.offsets[b] < plan.offsets[a] + records[a].size;
  const problems: string[] = [];
  for (const load of trace.loads) {
    const loadStep = plan.loadSteps?.[load.record] ?? records[load.record].first;
    for (const compute of trace.computes) {
      if (!touched[compute.step].some((r) => overlaps(r, load.record))) continue;
      const computeFirst = compute.step < loadStep;
      const fine = computeFirst ? compute.end < load.start : load.end < compute.start;
      if (!fine) problems.push(`load of ${records[load.record].id} (from operator ${loadStep}) and compute of operator ${compute.step} (${order[compute.step].name}) interleave`);
    }
  }
  return problems;
}

describe('the budgeted backend', () => {
  it.each([
    ['budgeted/flexnn', 48 * 1024, 'overlapped'],
    ['budgeted/flexnn', 256 * 1024, 'overlapped'],
    ['budgeted/flexnn-no-preload', 48 * 1024, 'on-demand'],
    ['offsets/greedy-by-size', 256 * 1024, 'overlapped'],
    ['offsets/greedy-by-size', undefined, 'on-demand'],
  ] as const)('%s in %s bytes, %s: outputs bit-identical to every weight resident; loads and computes never touch the same bytes out of order', async (planner, budget, loading) => {
    const run = await runBudgeted(planner, budget, loading);
    try {
      expect(outOfOrder(run)).toEqual([]);
      expect(bitIdentical(run.outputs, await unbudgeted())).toBe(true);
      const stats = run.prepared.streamingStats!();
      expect(stats.ioStallMs).toHaveLength(3);
      expect(stats.loads).toBe(run.network.problem.records.filter((r) => r.kind === 'weight').length);
      expect(stats.bytesLoaded).toBe(run.network.problem.records.filter((r) => r.kind === 'weight').reduce((a, r) => a + r.size, 0));
      // The buffer is the budget (or the plan's footprint), rounded up to whole pages after the kernels' 64 bytes.
      expect(run.prepared.memory().intermediates).toBe(Math.ceil((64 + (budget ?? run.plan.footprint)) / 65536) * 65536);
    } finally {
      run.prepared.dispose();
    }
  });

  it('preloads weights under a roomy budget: loads then run ahead of the layers before them', async () => {
    const run = await runBudgeted('budgeted/flexnn', 256 * 1024, 'overlapped');
    onTestFinished(() => run.prepared.dispose());
    const { records } = run.network.problem;
    const preloaded = records.filter((r, i) => r.kind === 'weight' && (run.plan.loadSteps?.[i] ?? r.first) < r.first);
    expect(preloaded.length).toBeGreaterThan(0);
    const trace = run.prepared.streamingStats!().trace!;
    const computeStart = (step: number) => trace.computes[step].start;
    // At least one load finished before the layer just before its own had started.
    expect(trace.loads.some((l) => records[l.record].first > 0 && l.end < computeStart(records[l.record].first - 1))).toBe(true);
  });

  it('reads past the page cache where the file system takes O_DIRECT, through its staging area, with the same outputs', async () => {
    // The weights file lies under the temporary folder (weights-file.ts): its file system decides.
    const direct = await directIoWorks(join(tmpdir(), 'memplan-direct-probe'));
    for (const budget of [48 * 1024, 256 * 1024]) {
      const run = await runBudgeted('budgeted/flexnn', budget, 'overlapped', { direct: true });
      try {
        expect(run.prepared.streamingStats!().reads).toEqual({ direct, bytesPerSecond: null });
        expect(outOfOrder(run)).toEqual([]);
        expect(bitIdentical(run.outputs, await unbudgeted())).toBe(true);
      } finally {
        run.prepared.dispose();
      }
    }
  });

  it('holds every load to a stated storage speed: no load ends sooner than its bytes take at that speed', async () => {
    const bytesPerSecond = 4e6;
    const run = await runBudgeted('budgeted/flexnn', 48 * 1024, 'overlapped', { direct: false, bytesPerSecond });
    onTestFinished(() => run.prepared.dispose());
    expect(run.prepared.streamingStats!().reads).toEqual({ direct: false, bytesPerSecond });
    const { records } = run.network.problem;
    const trace = await run.prepared.trace!(inputs);
    const loads = trace.filter((span) => span.op === 'load');
    expect(loads.length).toBeGreaterThan(0);
    for (const load of loads) {
      const bytes = records.find((r) => r.id === load.node)!.size;
      expect(load.end - load.start).toBeGreaterThanOrEqual((bytes * 1000) / bytesPerSecond - 0.01);
    }
  });

  it.each([
    ['zoo:vit-b-16?input=64&layers=2&width=0.25', 2 ** 20],
    ['zoo:gpt-2?tokens=16&layers=2&width=0.25', 12 * 2 ** 20],
  ] as const)('%s in %d bytes, below its weights: sliced to a fifth of the budget, outputs bit-identical to the CPU backend', async (source, budget) => {
    const transformer = weightedGraph(buildZooModel(source), 'seeded', 5);
    const given = seededInputs(transformer, 5);
    const { graph: planned, problem } = plannedProblem(transformer, { elementSize: 4, scratch: true });
    const cpu = await cpuBackend.prepare({ graph: planned, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 }) });
    const expected = new Map([...(await cpu.infer(given))].map(([n, v]) => [n, v.slice()]));
    const network = budgetedNetwork(transformer, { budget });
    const weights = network.problem.records.filter((r) => r.kind === 'weight');
    expect(weights.reduce((sum, r) => sum + r.size, 0)).toBeGreaterThan(budget);
    expect(Math.max(...weights.map((r) => r.size))).toBeLessThanOrEqual(budget / 5);
    if (source.includes('gpt-2')) {
      // The tied table twice: by rows for the embedding's Gather, by columns (panels) for the head.
      expect(network.graph.nodes.filter((n) => n.op === 'Gather' && n.rows !== undefined).length).toBeGreaterThan(5);
      expect(network.graph.nodes.filter((n) => n.name.startsWith('gpt2/lm_head@slice')).length).toBeGreaterThan(5);
    }
    const plan = planAndVerify(findPlanner('budgeted/flexnn'), network.problem, { alignment: 64 });
    expect(plan.valid).toBe(true);
    const file = new WeightsFile(network, network.graph);
    files.push(file);
    const prepared = await budgetedBackend.prepare({ graph: network.graph, problem: network.problem, plan, streaming: { weightsFile: file.path, loading: 'overlapped', bufferBytes: budget } });
    onTestFinished(() => prepared.dispose());
    for (let k = 0; k < 2; k++) expect(bitIdentical(await prepared.infer(given), expected)).toBe(true);
  });

  it('refuses what it cannot run, in one sentence', async () => {
    const network = budgetedNetwork(graph, {});
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), network.problem, { alignment: 64 });
    await expect(budgetedBackend.prepare({ graph: network.graph, problem: network.problem, plan })).rejects.toThrow(/budgeted plans with a weights file/);
    // An NCHW graph (one with a node that does not convert to NHWC stays so): refused before anything is read.
    await expect(
      budgetedBackend.prepare({ graph: toNchw(network.graph), problem: network.problem, plan, streaming: { weightsFile: '/dev/zero', loading: 'overlapped', bufferBytes: plan.footprint } }),
    ).rejects.toThrow(/^the budgeted executor runs NHWC networks \(the zoo, \.tflite files, ONNX files whose every node converts to NHWC\); \S+ is NCHW\.$/);
  });

  it("lays an ONNX file's NCHW network out NHWC, as the CPU executor does", () => {
    const nchw = budgetedNetwork(toNchw(graph), {});
    expect(nchw.graph.layout).toBe('NHWC');
    expect(nchw.problem.records.map((r) => r.size)).toEqual(budgetedNetwork(graph, {}).problem.records.map((r) => r.size));
  });

  it('says why when the weights file cannot be read', async () => {
    const network = budgetedNetwork(graph, {});
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), network.problem, { alignment: 64 });
    const prepared = await budgetedBackend.prepare({
      graph: network.graph,
      problem: network.problem,
      plan,
      streaming: { weightsFile: '/nonexistent/weights.bin', loading: 'overlapped', bufferBytes: plan.footprint },
    });
    onTestFinished(() => prepared.dispose());
    await expect(prepared.infer(inputs)).rejects.toThrow(/the loader thread failed: ENOENT/);
  });
});
