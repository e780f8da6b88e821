import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { PreparedNetwork } from '../../../src/backends/backend.ts';
import { BackendError } from '../../../src/backends/backend-error.ts';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { cpuParallelBackend } from '../../../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import type { Schedule } from '../../../src/graph/schedule.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { verifyReceived } from '../../../src/planners/plan-handover.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';

/** The outputs of the one-thread backend inside the naive plan, one operator at a time: the reference. */
async function sequentialNaive(graph: Graph): Promise<{ outputs: Map<string, Float32Array>; weights: number }> {
  const { graph: planned, problem } = plannedProblem(graph, { elementSize: 4, scratch: true });
  const naive = planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 });
  const prepared = await cpuBackend.prepare({ graph: planned, problem, plan: naive });
  const outputs = await prepared.infer(seededInputs(planned, 1));
  return { outputs: new Map([...outputs].map(([name, values]) => [name, values.slice()])), weights: prepared.memory().weights };
}

async function parallel(
  graph: Graph,
  schedule: Schedule,
  planner: string,
  workers: number,
): Promise<{ prepared: PreparedNetwork; outputs: Map<string, Float32Array>; footprint: number; stepSizes: number[] }> {
  const { graph: planned, problem, steps } = plannedProblem(graph, { elementSize: 4, scratch: true, schedule });
  const plan = planAndVerify(findPlanner(planner), problem, { alignment: 64 });
  expect(plan.valid).toBe(true);
  const prepared = await cpuParallelBackend.prepare({ graph: planned, problem, plan, steps, workers });
  const inputs = seededInputs(planned, 1);
  await prepared.infer(inputs);
  const outputs = await prepared.infer(inputs);
  return { prepared, outputs, footprint: plan.footprint, stepSizes: steps.map((s) => s.length) };
}

describe('the cpu-parallel backend', () => {
  it.each<[string, Schedule, string, number]>([
    ['zoo:blazeface', 'groups:2', 'offsets/greedy-by-size', 2],
    // Three workers where the machine has the cores (the backend runs at most one per core).
    ['zoo:blazeface', 'levels', 'shared-objects/greedy-by-size-improved', Math.min(3, availableParallelism())],
    ['zoo:resnext-50-paths?input=32', 'groups:2', 'offsets/greedy-by-size', 2],
    ['zoo:resnext-50-paths?input=32', 'levels', 'shared-objects/naive', 2],
  ])('runs %s under %s (%s, %i workers) bit for bit as the sequential naive run', async (source, schedule, planner, workers) => {
    const graph = weightedGraph(buildZooModel(source), 'seeded', 1);
    const reference = await sequentialNaive(graph);
    const run = await parallel(graph, schedule, planner, workers);
    try {
      expect(bitIdentical(run.outputs, reference.outputs)).toBe(true);
      const memory = run.prepared.memory();
      // One copy of the weights in the one shared memory, whatever the number of workers: what the one-thread backend holds.
      expect(memory.weights).toBe(reference.weights);
      expect(memory.intermediates).toBe(run.footprint);
      // Every kernel's scratch is a record of the plan; only pooling keeps accumulators of its own (a few KiB).
      expect(memory.scratch).toBeLessThan(64 * 1024);
      const pool = run.prepared.parallel!;
      // The pool's threads, started once: the runtime's (what the process grew by while they started).
      expect(memory.runtime).toBe(pool.poolRss);
      expect(pool.workers).toBe(workers);
      expect(pool.stepSizes).toEqual(run.stepSizes);
      expect(Math.max(...pool.stepSizes)).toBeGreaterThan(1);
      const last = pool.lastRun()!;
      expect(last.stepMs).toHaveLength(run.stepSizes.length);
      expect(last.busyMs).toHaveLength(workers);
      const wall = last.stepMs.reduce((a, b) => a + b, 0);
      const busy = last.busyMs.reduce((a, b) => a + b, 0);
      expect(busy).toBeGreaterThan(0);
      expect(busy).toBeLessThanOrEqual(workers * wall * 1.01 + 1);
    } finally {
      run.prepared.dispose();
    }
  });

  it('catches a planted plan that puts two tensors of one step in the same bytes: the outputs differ from naive', async () => {
    // Two convolutions from one input run in one step; both outputs are read by the Add of the next.
    const b = new NetworkBuilder('diamond');
    const x = b.input('in', [1, 16, 16, 8]);
    const top = b.conv('top', x, { out: 8, kernel: 3 });
    const left = b.conv('left', top, { out: 8, kernel: 3 });
    const right = b.conv('right', top, { out: 8, kernel: 1 });
    const graph = weightedGraph(b.build([b.conv('head', b.add('join', left, right), { out: 4, kernel: 1 })]), 'seeded', 3);
    const reference = await sequentialNaive(graph);
    const { graph: planned, problem, steps } = plannedProblem(graph, { elementSize: 4, scratch: true, schedule: 'levels' });
    expect(steps.map((s) => s.map((n) => n.name))).toEqual([['top'], ['left', 'right'], ['join'], ['head']]);
    const naive = planAndVerify(findPlanner('offsets/naive'), problem, { alignment: 64 });
    const offsets = [...naive.offsets];
    offsets[problem.records.findIndex((r) => r.id === right)] = offsets[problem.records.findIndex((r) => r.id === left)];
    const planted = verifyReceived({ planner: 'planted', plan: { approach: 'offsets', offsets, footprint: naive.footprint } }, problem, 64);
    expect(planted.valid).toBe(false);
    for (const workers of [1, 2]) {
      const prepared = await cpuParallelBackend.prepare({ graph: planned, problem, plan: planted, steps, workers });
      try {
        expect(bitIdentical(await prepared.infer(seededInputs(planned, 1)), reference.outputs)).toBe(false);
      } finally {
        prepared.dispose();
      }
    }
  });

  it('refuses steps that read what their own step writes, or miss a node', async () => {
    const graph = weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1);
    const { graph: planned, problem, steps } = plannedProblem(graph, { elementSize: 4, scratch: true });
    const plan = planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 });
    const merged = [[...steps[0], ...steps[1]], ...steps.slice(2)];
    await expect(cpuParallelBackend.prepare({ graph: planned, problem, plan, steps: merged, workers: 1 })).rejects.toThrow(BackendError);
    await expect(cpuParallelBackend.prepare({ graph: planned, problem, plan, steps: merged, workers: 1 })).rejects.toThrow(/a step may read only what earlier steps wrote/);
    await expect(cpuParallelBackend.prepare({ graph: planned, problem, plan, steps: steps.slice(1), workers: 1 })).rejects.toThrow(/the steps hold/);
    await expect(cpuParallelBackend.prepare({ graph: planned, problem, plan, steps, workers: 0 })).rejects.toThrow(/workers >= 1/);
    await expect(cpuParallelBackend.prepare({ graph: planned, problem, plan, steps, workers: availableParallelism() + 1 })).rejects.toThrow(/at most one worker per core/);
  });
});
