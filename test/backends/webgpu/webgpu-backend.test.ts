import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/backends/backend.ts';
import { BackendError } from '../../../src/backends/backend-error.ts';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import { execute } from '../../../src/measuring/execute.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { relativeError } from '../../../src/measuring/peer-session.ts';
import { gpuContext } from '../../../src/backends/webgpu/device.ts';
import { GpuMemory } from '../../../src/backends/webgpu/memory.ts';
import { DispatchTimer } from '../../../src/backends/webgpu/timing.ts';
import { webgpuBackend } from '../../../src/backends/webgpu/webgpu-backend.ts';
import { executionOrder } from '../../../src/graph/execution-order.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { plannedProblem, type RecordOptions } from '../../../src/graph/lifetimes.ts';
import type { Problem } from '../../../src/core/problem.ts';
import { toNchw } from '../../../src/graph/to-nchw.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { planAndVerify, type VerifiedResult } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner, PLANNERS } from '../../../src/planners/registry.ts';
import { webgpuAvailable } from './adapter.ts';

const available = await webgpuAvailable('test/backends/webgpu/webgpu-backend.test.ts');

/** BlazeFace as published, the others at reduced input sizes (as the CPU backend's tests). */
const NETWORKS = ['zoo:blazeface', 'zoo:mobilenet-v2?input=96', 'zoo:mobilenet-v1?input=96', 'zoo:deeplab-v3?input=97', 'zoo:posenet?input=129', 'zoo:inception-v3?input=139'];

/** The tolerance against the CPU backend: largest difference over the largest magnitude. */
const TOLERANCE = 1e-3;

/** A network as the WebGPU backend runs it (standalone activations fused into their producers) and its records. */
function gpuProblem(graph: Graph, records: RecordOptions = {}): { graph: Graph; problem: Problem } {
  return plannedProblem(graph, executionRecords(webgpuBackend, records));
}

async function run(graph: Graph, problem: Problem, plan: VerifiedResult, backend: Backend = webgpuBackend, seed = 1): Promise<Map<string, Float32Array>> {
  const prepared = await backend.prepare({ graph, problem, plan });
  try {
    return await prepared.infer(seededInputs(graph, seed));
  } finally {
    prepared.dispose();
  }
}

/** The CPU executor's outputs: on the graph it runs (its activations fused), inside the naive plan of its records. */
async function cpuReference(graph: Graph, seed = 1): Promise<Map<string, Float32Array>> {
  // In the graph's own layout (an NCHW graph would run laid out NHWC, its inputs and outputs in that order).
  const { graph: fused, problem } = plannedProblem(graph, { ...executionRecords(cpuBackend), nhwc: false });
  return run(fused, problem, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 }), cpuBackend, seed);
}

describe.skipIf(!available)('the WebGPU backend', () => {
  it('describes its adapter and driver, and asks plans for its storage offset alignment', async () => {
    const info = await webgpuBackend.device();
    expect(info).toMatchObject({ backend: 'webgpu' });
    for (const key of ['vendor', 'architecture', 'device', 'description', 'driver', 'icd']) expect(typeof info[key], key).toBe('string');
    expect(typeof info.fallbackAdapter).toBe('boolean');
    expect(['timestamp-query', 'wall-clock']).toContain(info.timing);
    const alignment = await webgpuBackend.requiredAlignment();
    expect(alignment).toBe(info.storageOffsetAlignment);
    expect(alignment).toBeGreaterThanOrEqual(16);
    expect(alignment & (alignment - 1)).toBe(0);
  });

  it.each(NETWORKS)('%s inside an offsets plan (greedy by size) computes what the CPU backend computes', async (source) => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel(source), 'seeded', 3));
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await webgpuBackend.requiredAlignment() });
    const ours = await run(graph, problem, plan, webgpuBackend, 3);
    expect(relativeError(ours, await cpuReference(graph, 3))).toBeLessThan(TOLERANCE);
  });

  it('times every node of an inference on its own (exec --trace): one span per node, in order, each after the one before, and computes as before', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1));
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await webgpuBackend.requiredAlignment() });
    const prepared = await webgpuBackend.prepare({ graph, problem, plan });
    try {
      const inputs = seededInputs(graph, 1);
      const before = new Map([...(await prepared.infer(inputs))].map(([name, values]) => [name, values.slice()]));
      const spans = await prepared.trace!(inputs);
      const order = executionOrder(graph);
      expect(spans.map((span) => [span.node, span.op, span.step, span.thread])).toEqual(order.map((node, step) => [node.name, node.op, step, 'device']));
      spans.forEach((span, k) => {
        expect(span.end).toBeGreaterThanOrEqual(span.start);
        if (k > 0) expect(span.start).toBeGreaterThanOrEqual(spans[k - 1].end);
      });
      expect(bitIdentical(await prepared.infer(inputs), before)).toBe(true);
    } finally {
      prepared.dispose();
    }
  });

  it('zoo:blazeface: every planner of the registry computes the same outputs inside its plan (bit for bit, and as the CPU does)', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1));
    const alignment = await webgpuBackend.requiredAlignment();
    const naive = await run(graph, problem, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment }));
    expect(relativeError(naive, await cpuReference(graph))).toBeLessThan(TOLERANCE);
    for (const planner of PLANNERS) {
      const plan = planAndVerify(planner, problem, { alignment });
      expect(plan.valid, planner.id).toBe(true);
      expect(bitIdentical(await run(graph, problem, plan), naive), planner.id).toBe(true);
    }
  });

  it('refuses a graph other than the one its records were made of: a tensor without a record gets no buffer of its own', async () => {
    // BlazeFace as written has a sum before each ReLU; the WebGPU backend's records fuse them, so the sums have none.
    const { problem } = gpuProblem(weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1));
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await webgpuBackend.requiredAlignment() });
    const unfused = weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1);
    await expect(webgpuBackend.prepare({ graph: unfused, problem, plan })).rejects.toThrow(/^tensor \S+ has no record in the plan: plan the graph this backend runs/);
  });

  it('catches a planted bad plan (every tensor at offset 0, past the verifier) by its outputs', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1));
    const alignment = await webgpuBackend.requiredAlignment();
    const good = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment });
    const planted: VerifiedResult = { ...good, offsets: good.offsets.map(() => 0), footprint: Math.max(...problem.records.map((r) => r.size)) };
    const naive = await run(graph, problem, planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment }));
    expect(bitIdentical(await run(graph, problem, good), naive)).toBe(true);
    expect(bitIdentical(await run(graph, problem, planted), naive)).toBe(false);
  });

  it('keeps graph inputs and outputs inside the arena when they are planned', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:mobilenet-v2?input=96'), 'seeded', 2), { includeGraphIO: true });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await webgpuBackend.requiredAlignment() });
    const prepared = await webgpuBackend.prepare({ graph, problem, plan });
    const ours = await prepared.infer(seededInputs(graph, 2));
    prepared.dispose();
    expect(relativeError(ours, await cpuReference(graph, 2))).toBeLessThan(TOLERANCE);
  });

  it("runs NCHW graphs (ONNX layout) too, and an ONNX file's Transposes (BlazeFace's, before its heads' reshapes)", async () => {
    const deeplab = weightedGraph(toNchw(buildZooModel('zoo:deeplab-v3?input=65')), 'seeded', 4);
    const blazeface = weightedGraph(readOnnx(writeOnnx(buildZooModel('zoo:blazeface'), { weights: 'random', seed: 4 }), 'blazeface.onnx'), 'file', 4);
    expect(blazeface.nodes.filter((n) => n.op === 'Transpose')).toHaveLength(4);
    for (const network of [deeplab, blazeface]) {
      const { graph, problem } = gpuProblem(network);
      const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await webgpuBackend.requiredAlignment() });
      expect(relativeError(await run(graph, problem, plan, webgpuBackend, 4), await cpuReference(graph, 4)), network.name).toBeLessThan(TOLERANCE);
    }
  });

  it('times the dispatches of every inference and says how', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:mobilenet-v1?input=96'), 'seeded', 1));
    const plan = planAndVerify(findPlanner('shared-objects/greedy-by-size-improved'), problem, { alignment: await webgpuBackend.requiredAlignment() });
    const prepared = await webgpuBackend.prepare({ graph, problem, plan });
    expect(prepared.memory().intermediates).toBe(plan.footprint);
    expect(prepared.lastDeviceMs).toBeUndefined();
    await prepared.infer(seededInputs(graph, 1));
    expect(prepared.timing).toBe((await webgpuBackend.device()).timing);
    expect(prepared.lastDeviceMs).toBeGreaterThan(0);
    expect(prepared.dispatches).toBe(graph.nodes.length);
    await expect(prepared.infer(new Map())).rejects.toThrow(BackendError);
    prepared.dispose();
    // Without timestamp queries: wall time from submit until the queue is done.
    const context = await gpuContext();
    const wall = new DispatchTimer({ ...context, timing: 'wall-clock' });
    expect(wall.passDescriptor().timestampWrites).toBeUndefined();
    const encoder = context.device.createCommandEncoder();
    encoder.beginComputePass(wall.passDescriptor()).end();
    wall.encodeResolve(encoder);
    context.device.queue.submit([encoder.finish()]);
    wall.submitted();
    expect(await wall.elapsedMs()).toBeGreaterThanOrEqual(0);
    wall.destroy();
  });

  it('reports latency, memory and the proof against naive through execute', async () => {
    const report = await execute(buildZooModel('zoo:blazeface'), { backend: webgpuBackend, planner: findPlanner('offsets/greedy-by-size'), repetitions: 3, warmup: 1, seed: 1 });
    expect(report).toMatchObject({ backend: 'webgpu', planner: 'offsets/greedy-by-size', matchesNaive: true, device: { backend: 'webgpu' } });
    expect(report.latencyMs.runs).toBe(3);
    expect(report.footprint % (await webgpuBackend.requiredAlignment())).toBeLessThan(report.footprint);
    // The device's own clock per inference (timestamps, or submit-to-done): never longer than the whole inference.
    expect(report.deviceMs?.runs).toBe(3);
    expect(report.deviceMs!.median).toBeGreaterThan(0);
    expect(report.deviceMs!.min).toBeLessThanOrEqual(report.latencyMs.max);
    // Device buffers counted where they are created: the arena is the plan; weights are on the device.
    expect(report.memory.device).toBeDefined();
    expect(report.memory.device!.intermediates).toBe(Math.ceil(report.footprint / 4) * 4);
    expect(report.memory.intermediates).toBe(report.memory.device!.intermediates);
    expect(report.memory.device!.weights).toBeGreaterThan(0);
    expect(report.memory.peakRssDelta).toBe(report.memory.peakRss - report.memory.baselineRss);
    // The adapter's own limits travel with the device info.
    expect(report.device.adapterLimits).toMatchObject({ maxBufferSize: expect.any(Number), maxStorageBufferBindingSize: expect.any(Number) });
  });

  it('says clearly when a plan does not respect the device alignment or a tensor is too large to bind', async () => {
    const { graph, problem } = gpuProblem(weightedGraph(buildZooModel('zoo:blazeface'), 'seeded', 1));
    const alignment = await webgpuBackend.requiredAlignment();
    const good = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment });
    const shifted: VerifiedResult = { ...good, offsets: good.offsets.map((o, i) => (i === 3 ? o + 4 : o)), footprint: good.footprint + 4 };
    await expect(webgpuBackend.prepare({ graph, problem, plan: shifted })).rejects.toThrow(new RegExp(`multiples of ${alignment} bytes`));
    const context = await gpuContext();
    const small = { ...context, limits: { ...context.limits, maxStorageBufferBindingSize: 1024 } };
    expect(() => new GpuMemory(small, { graph, problem, plan: good })).toThrow(/maxStorageBufferBindingSize 1024/);
  });
});
