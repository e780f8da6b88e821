import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import { execute } from '../../../src/measuring/execute.ts';
import { jobNetwork } from '../../../src/measuring/isolation/measure-job.ts';
import { withoutWeights } from '../../../src/backends/run-data.ts';
import { planOf } from '../../../src/planners/plan-handover.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { plannedProblem, type RecordOptions } from '../../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { interleavedBranches } from '../../fixtures/graphs.ts';

/** Outputs of the graph run inside a tight plan (greedy by size) of the records these options give. */
async function outputs(source: Graph, records: RecordOptions) {
  const { graph, problem } = plannedProblem(weightedGraph(source, 'seeded', 1), { ...records, elementSize: 4, scratch: true });
  const prepared = await cpuBackend.prepare({ graph, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 }) });
  return { graph, problem, outputs: await prepared.infer(seededInputs(graph, 1)) };
}

describe('running the planned order', () => {
  it('a reordered network computes bit-identical outputs inside a plan made for the new order', async () => {
    const source = interleavedBranches();
    const given = await outputs(source, {});
    const reordered = await outputs(source, { order: 'memory-aware' });
    expect(reordered.graph.nodes.map((n) => n.name)).not.toEqual(given.graph.nodes.map((n) => n.name));
    expect(bitIdentical(reordered.outputs, given.outputs)).toBe(true);
  });

  it('a zoo network (BlazeFace) under memory-aware order: outputs bit-identical to the given order', async () => {
    const source = buildZooModel('zoo:blazeface');
    const given = await outputs(source, {});
    const reordered = await outputs(source, { order: 'memory-aware', fuseActivations: true });
    expect(bitIdentical(reordered.outputs, given.outputs)).toBe(true);
  });

  it('execute runs the graph the records come from (fused and reordered) in its measured process, and it matches naive', async () => {
    const records: RecordOptions = { order: 'memory-aware', fuseActivations: true };
    const planner = findPlanner('offsets/greedy-by-size');
    const report = await execute(interleavedBranches(), { backend: cpuBackend, planner, repetitions: 1, warmup: 0, seed: 1, records });
    // What that process derives from the job and hands its backend: the planned graph.
    const expected = plannedProblem(weightedGraph(interleavedBranches(), 'seeded', 1), { ...records, elementSize: 4, scratch: true });
    const plan = planAndVerify(planner, expected.problem, { alignment: 4 });
    // The measured process verified the plan against the records it derived itself: a plan
    // of the reordered records, smaller than a plan of the stored order's.
    expect(report.matchesNaive).toBe(true);
    expect(report.footprint).toBe(plan.footprint);
    const stored = plannedProblem(interleavedBranches(), { elementSize: 4, scratch: true }).problem;
    expect(report.footprint).toBeLessThan(planAndVerify(planner, stored, { alignment: 4 }).footprint);
    const job = {
      graph: withoutWeights(interleavedBranches()),
      seededWeights: 1,
      records: { ...records, elementSize: 4, scratch: true },
      planner: planner.id,
      plan: planOf(plan),
      alignment: 4,
      backend: 'cpu',
      warmup: 0,
      repetitions: 0,
      seed: 1,
    };
    const { graph, problem } = jobNetwork(job);
    expect(graph.nodes.map((n) => n.name)).toEqual(expected.graph.nodes.map((n) => n.name));
    expect(graph.nodes.some((n) => n.op === 'Relu')).toBe(false);
    expect(problem).toEqual(expected.problem);
    // Every intermediate tensor the backend runs is one the plan placed.
    const planned = new Set(problem.records.map((r) => r.id));
    for (const node of graph.nodes) for (const name of node.outputs) if (!graph.outputs.includes(name)) expect(planned.has(name), name).toBe(true);
  });
});
