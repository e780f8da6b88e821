import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { relativeError, runOnnxRuntime } from '../../../src/backends/onnxruntime/onnxruntime-peer.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { bitIdentical, executeGraph, seededInputs, weightedGraph } from '../../../src/backends/execute.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { planAndVerify, type VerifiedResult } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner, PLANNERS } from '../../../src/planners/registry.ts';

/** Small enough for CI: BlazeFace as published, the others at reduced input sizes. */
const NETWORKS = [
  'zoo:blazeface',
  'zoo:mobilenet-v2?input=96',
  'zoo:mobilenet-v1?input=96',
  'zoo:deeplab-v3?input=97',
  'zoo:posenet?input=129',
  'zoo:inception-v3?input=139',
];

async function run(graph: Graph, plan: VerifiedResult) {
  const problem = graphToProblem(graph, { elementSize: 4 });
  const prepared = await cpuBackend.prepare({ graph, problem, plan });
  return prepared.infer(seededInputs(graph, 1));
}

describe('the CPU backend', () => {
  it.each(['zoo:blazeface', 'zoo:mobilenet-v2?input=96'])('%s: every planner computes bit-identical outputs inside its plan', async (source) => {
    const graph = weightedGraph(buildZooModel(source), 'seeded', 1);
    const problem = graphToProblem(graph, { elementSize: 4 });
    const naive = await run(graph, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 }));
    for (const planner of PLANNERS) {
      const outputs = await run(graph, planAndVerify(planner, problem, { alignment: 4 }));
      expect(bitIdentical(outputs, naive), planner.id).toBe(true);
    }
  });

  it('catches a planted bad plan (live tensors overlapping) by its outputs', async () => {
    const graph = weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1);
    const problem = graphToProblem(graph, { elementSize: 4 });
    const good = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 });
    // Every tensor at offset 0: producers overwrite what their consumers still read.
    const planted: VerifiedResult = { ...good, offsets: good.offsets.map(() => 0), footprint: Math.max(...problem.records.map((r) => r.size)) };
    const naive = await run(graph, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 }));
    expect(bitIdentical(await run(graph, planted), naive)).toBe(false);
  });

  it.each(NETWORKS)('%s agrees with onnxruntime on the same ONNX file (relative error < 1e-4)', async (source) => {
    const graph = weightedGraph(buildZooModel(source), 'seeded', 3);
    const problem = graphToProblem(graph, { elementSize: 4 });
    const inputs = seededInputs(graph, 3);
    const prepared = await cpuBackend.prepare({ graph, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 }) });
    const ours = await prepared.infer(inputs);
    const peer = await runOnnxRuntime(graph, inputs, { warmup: 0, repetitions: 1 });
    expect(relativeError(ours, peer.outputs)).toBeLessThan(1e-4);
  }, 60_000);

  it('reports latency, memory and the proof against naive through executeGraph', async () => {
    const report = await executeGraph(buildZooModel('zoo:blazeface'), {
      backend: cpuBackend,
      planner: findPlanner('offsets/greedy-by-size'),
      repetitions: 3,
      warmup: 1,
      seed: 1,
    });
    expect(report).toMatchObject({ backend: 'cpu', planner: 'offsets/greedy-by-size', matchesNaive: true, device: { backend: 'cpu', threads: 1 } });
    expect(report.latencyMs.runs).toBe(3);
    expect(report.latencyMs.ci95[0]).toBeLessThanOrEqual(report.latencyMs.median);
    expect(report.latencyMs.ci95[1]).toBeGreaterThanOrEqual(report.latencyMs.median);
    expect(report.peakRssBytes).toBeGreaterThan(0);
    expect(report.footprint).toBeGreaterThan(0);
  });
});
