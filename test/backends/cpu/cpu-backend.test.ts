import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { kernelScratchBytes } from '../../../src/backends/cpu/kernels/index.ts';
import { simdMemoryBytes } from '../../../src/backends/cpu/kernels/wasm/engine.ts';
import { runOnnxRuntime } from '../../../src/measuring/onnxruntime-peer.ts';
import { peerJob, relativeError } from '../../../src/measuring/peer-session.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { graphToProblem, plannedGraphOptions, plannedProblem } from '../../../src/graph/lifetimes.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import { execute } from '../../../src/measuring/execute.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { streamSeededWeights } from '../../../src/graph/seeded-weights.ts';
import { withoutWeights } from '../../../src/backends/run-data.ts';
import { planAndVerify, type VerifiedResult } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner, PLANNERS } from '../../../src/planners/registry.ts';

/** The CPU executor plans its kernels' scratch (Backend.plansScratch) and fuses standalone activations (Backend.fusesActivations). */
const CPU_RECORDS = executionRecords(cpuBackend);

/** A zoo network with seeded weights as the CPU executor runs it (activations fused), and its records. */
function cpuProblem(source: string, seed: number) {
  return plannedProblem(weightedGraph(buildZooModel(source), 'seeded', seed), CPU_RECORDS);
}

/** Small enough for CI: BlazeFace as published, the others at reduced input sizes. */
const NETWORKS = ['zoo:blazeface', 'zoo:mobilenet-v2?input=96', 'zoo:mobilenet-v1?input=96', 'zoo:deeplab-v3?input=97', 'zoo:posenet?input=129', 'zoo:inception-v3?input=139'];

async function run(graph: Graph, plan: VerifiedResult) {
  const problem = graphToProblem(graph, plannedGraphOptions(CPU_RECORDS));
  const prepared = await cpuBackend.prepare({ graph, problem, plan });
  return prepared.infer(seededInputs(graph, 1));
}

describe('the CPU backend', () => {
  it.each(['zoo:blazeface', 'zoo:mobilenet-v2?input=96'])('%s: every planner computes bit-identical outputs inside its plan', async (source) => {
    const { graph, problem } = cpuProblem(source, 1);
    const naive = await run(graph, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 }));
    for (const planner of PLANNERS) {
      // Any verified plan must compute the same: the exact searches stop at a second, not their default ten.
      const outputs = await run(graph, planAndVerify(planner, problem, { alignment: 4, timeLimitMs: 1000 }));
      expect(bitIdentical(outputs, naive), planner.id).toBe(true);
    }
  });

  it('runs in one memory sized before the first inference: kernels stage, copy and grow nothing while it runs', async () => {
    const graph = weightedGraph(buildZooModel('zoo:mobilenet-v2?input=96'), 'seeded', 1);
    const problem = graphToProblem(graph, CPU_RECORDS);
    // The im2col bands and the zero-framed depthwise bands are records of the plan.
    expect(problem.records.filter((r) => r.kind === 'scratch').length).toBeGreaterThan(10);
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    const prepared = await cpuBackend.prepare({ graph, problem, plan });
    const before = { held: prepared.memory(), scratch: kernelScratchBytes(), staged: simdMemoryBytes() };
    expect(before.held).toMatchObject({ intermediates: plan.footprint, scratch: 0 });
    const inputs = seededInputs(graph, 1);
    await prepared.infer(inputs);
    await prepared.infer(inputs);
    expect(prepared.memory()).toEqual(before.held);
    expect(kernelScratchBytes()).toBe(before.scratch);
    // The engine that stages operands per call is never used: the kernels compute where the tensors lie.
    expect(simdMemoryBytes()).toBe(before.staged);
  });

  it('takes seeded weights as a stream, a run at a time, and computes what it computes from the whole weighted graph', async () => {
    const source = buildZooModel('zoo:mobilenet-v1?input=96');
    const weighted = weightedGraph(source, 'seeded', 2);
    const problem = graphToProblem(weighted, CPU_RECORDS);
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    const inputs = seededInputs(weighted, 2);
    const whole = await (await cpuBackend.prepare({ graph: weighted, problem, plan })).infer(inputs);
    const bare = withoutWeights(source);
    const streamed = await cpuBackend.prepare({ graph: bare, problem, plan, weights: (sink) => streamSeededWeights(bare, 2, sink) });
    expect(bitIdentical(await streamed.infer(inputs), whole)).toBe(true);
  });

  it('refuses a plan without the scratch records its kernels need, in one sentence', async () => {
    const graph = weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1);
    const problem = graphToProblem(graph, { elementSize: 4 });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 });
    await expect(cpuBackend.prepare({ graph, problem, plan })).rejects.toThrow(/^node \S+ needs \d+ bytes of scratch, which the plan's records do not hold/);
  });

  it('refuses a graph other than the one its records were made of: a tensor without a record is not placed outside the plan', async () => {
    // BlazeFace as written has a sum before each ReLU; the records of the CPU executor fuse them, so the sums have none.
    const { problem } = cpuProblem('zoo:blazeface', 1);
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 });
    const unfused = weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1);
    await expect(cpuBackend.prepare({ graph: unfused, problem, plan })).rejects.toThrow(/^tensor \S+ has no record in the plan: plan the graph this backend runs/);
  });

  it('catches a planted bad plan (live tensors overlapping) by its outputs', async () => {
    const { graph, problem } = cpuProblem('zoo:blazeface', 1);
    const good = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 });
    // Every tensor at offset 0: producers overwrite what their consumers still read.
    const planted: VerifiedResult = { ...good, offsets: good.offsets.map(() => 0), footprint: Math.max(...problem.records.map((r) => r.size)) };
    const naive = await run(graph, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 }));
    expect(bitIdentical(await run(graph, planted), naive)).toBe(false);
  });

  /** A zoo network's outputs here (Greedy by Size, seeded weights and inputs) and onnxruntime's on the same ONNX file. */
  async function oursAndPeer(source: string) {
    const { graph, problem } = cpuProblem(source, 3);
    const inputs = seededInputs(graph, 3);
    const prepared = await cpuBackend.prepare({ graph, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 }) });
    const ours = await prepared.infer(inputs);
    // The peer runs the network as written (its ONNX file has the activations standalone).
    const peer = await runOnnxRuntime(await peerJob(weightedGraph(buildZooModel(source), 'seeded', 3), inputs), { warmup: 0, repetitions: 1 });
    return { ours, peer };
  }

  it.each(NETWORKS)(
    '%s agrees with onnxruntime on the same ONNX file (relative error < 1e-4)',
    async (source) => {
      const { ours, peer } = await oursAndPeer(source);
      expect(relativeError(ours, peer.outputs)).toBeLessThan(1e-4);
    },
    60_000,
  );

  it.each(['zoo:vit-b-16?input=64&layers=2&width=0.25', 'zoo:gpt-2?tokens=16&layers=2&width=0.25'])(
    '%s (the transformers, small) agrees with onnxruntime: relative error < 1e-5, every logit within 1e-5',
    async (source) => {
      const { ours, peer } = await oursAndPeer(source);
      expect(relativeError(ours, peer.outputs)).toBeLessThan(1e-5);
      for (const [name, expected] of peer.outputs) {
        const actual = ours.get(name)!;
        let worst = 0;
        for (let k = 0; k < expected.length; k++) worst = Math.max(worst, Math.abs(actual[k] - expected[k]));
        expect(worst, name).toBeLessThan(1e-5);
      }
    },
    60_000,
  );

  it('reports latency, memory and the proof against naive through execute', async () => {
    const report = await execute(buildZooModel('zoo:blazeface'), {
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
