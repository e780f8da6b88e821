import { describe, expect, it } from 'vitest';
import { checkGraph, checkJob } from '../../src/agent/check-job.ts';
import { decodeGraph, decodeJob, decodeTypedArray, encodeGraph, encodeJob, encodeTypedArray, jobRecordOptions, PROTOCOL_VERSION, WireError, wirePlan } from '../../src/agent/wire.ts';
import { weightedGraph } from '../../src/backends/run-data.ts';
import type { Graph } from '../../src/graph/ir.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { graphToProblem, plannedGraphOptions, plannedProblem } from '../../src/graph/lifetimes.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { interleavedBranches } from '../fixtures/graphs.ts';
import { jobRequest, tinyGraph } from './helpers.ts';

const CPU = [{ kind: 'cpu', requiredAlignment: 4 }];
const roundTrip = (graph: Graph): Graph => decodeGraph(JSON.parse(JSON.stringify(encodeGraph(graph))));
const bytesOf = (view: ArrayBufferView): number[] => [...new Uint8Array(view.buffer, view.byteOffset, view.byteLength)];
const decodeText = (request: unknown): ReturnType<typeof decodeJob> => decodeJob(JSON.stringify(request));
/** The sentence a bad job gets, as the agent would send it back. */
const refusal = (request: unknown): string => {
  try {
    checkJob(decodeText(request), CPU, 2 ** 32);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error('the job was accepted');
};

describe('the wire format', () => {
  it('carries every typed array back as the same kind with the same bits', () => {
    const floats = new Float32Array([0, -0, 1.5, -Infinity, Infinity, 3.4028234663852886e38, 1e-45]);
    const nanBits = new Uint32Array(floats.buffer, 0, floats.length);
    nanBits[0] = 0x7fc00001; // a NaN with a payload
    const views: ArrayBufferView[] = [
      floats,
      new Float64Array([Math.PI, -0, NaN, 5e-324]),
      new Int8Array([-128, 127, 0]),
      new Uint8Array([0, 255, 7]),
      new Uint8ClampedArray([0, 255]),
      new Int16Array([-32768, 32767]),
      new Uint16Array([0x3c00, 0xffff]),
      new Int32Array([-(2 ** 31), 2 ** 31 - 1]),
      new Uint32Array([0xdeadbeef]),
      new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n]),
      new BigUint64Array([2n ** 64n - 1n]),
      new DataView(new Uint8Array([1, 2, 3]).buffer),
      new Float32Array(new ArrayBuffer(64), 12, 3), // a view into a larger buffer
      new Float32Array(0),
    ];
    for (const view of views) {
      const back = decodeTypedArray(JSON.parse(JSON.stringify(encodeTypedArray(view, 'test'))), 'test');
      expect(back.constructor).toBe(view.constructor);
      expect(bytesOf(back)).toEqual(bytesOf(view));
    }
  });

  it('round-trips zoo networks with their weights exactly', () => {
    // Structure compared field by field; values compared as bytes (deep equality over millions of floats is slow).
    const bare = (g: Graph) => ({ ...g, tensors: [...g.tensors.values()].map((t) => ({ ...t, data: t.data?.constructor.name })) });
    const bytes = (view: ArrayBufferView): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
    for (const source of ['zoo:mobilenet-v2', 'zoo:deeplab-v3', 'zoo:blazeface', 'zoo:gpt-2?tokens=4&layers=1&width=0.25', 'zoo:vit-b-16?input=32&layers=1&width=0.25']) {
      const graph = weightedGraph(buildZooModel(source), 'seeded', 7);
      const back = roundTrip(graph);
      expect(bare(back)).toEqual(bare(graph));
      for (const [name, tensor] of graph.tensors) {
        if (tensor.data) expect(bytes(back.tensors.get(name)!.data!).equals(bytes(tensor.data)), name).toBe(true);
      }
      expect(() => checkGraph(back)).not.toThrow();
    }
  });

  it('carries only the record options a job knows (the CLI passes its source options too)', () => {
    const wide = { inputShapes: new Map(), includeGraphIO: true, elementSize: 2, roundChannelsTo4: false, fuseActivations: undefined };
    expect(jobRecordOptions(wide)).toEqual({ includeGraphIO: true, roundChannelsTo4: false });
    expect(jobRecordOptions({ ...wide, order: 'memory-aware' })).toEqual({ includeGraphIO: true, roundChannelsTo4: false, order: 'memory-aware' });
  });

  it('takes the operator order among the record options, and only the known ones', () => {
    const request = jobRequest(tinyGraph());
    expect(decodeText({ ...request, records: { order: 'memory-aware' } }).records).toEqual({ order: 'memory-aware' });
    expect(() => decodeText({ ...request, records: { order: 'random' } })).toThrow('records.order must be given or memory-aware, got "random".');
  });

  it('carries a schedule (leaving out the default, so that an agent from before schedules still takes sequential jobs) and the workers of a pool', () => {
    const request = jobRequest(tinyGraph());
    expect(decodeText({ ...request, records: { schedule: 'groups:2' } }).records).toEqual({ schedule: 'groups:2' });
    expect(() => decodeText({ ...request, records: { schedule: 'groups:0' } })).toThrow('records.schedule must be sequential, levels or groups:K (K a whole number >= 1), got "groups:0".');
    expect(jobRecordOptions({ schedule: 'sequential', order: 'given' })).toEqual({ order: 'given' });
    expect(jobRecordOptions({ schedule: 'levels' })).toEqual({ schedule: 'levels' });
    expect(decodeText({ ...request, run: { ...request.run, workers: 3 } }).run.workers).toBe(3);
    expect(decodeText(request).run.workers).toBeUndefined();
    expect(() => decodeText({ ...request, run: { ...request.run, workers: 0 } })).toThrow(/^run.workers must be a whole number from 1/);
  });

  it('names the protocol mismatch before anything else', () => {
    expect(() => decodeJob(JSON.stringify({ protocol: 2 }))).toThrow(`the job is protocol 2 but this side speaks protocol ${PROTOCOL_VERSION}; run the same memplan version on both sides.`);
    expect(() => decodeJob('{}')).toThrow(/gives no protocol version/);
    expect(() => decodeJob('{"protocol": 1, ')).toThrow(/^the job is not valid JSON \(/);
    expect(() => decodeJob('[1]')).toThrow('the job must be a JSON object.');
  });

  it('refuses what the IR does not have, in one sentence naming the field', () => {
    const request = jobRequest(tinyGraph());
    const withNode = (patch: Record<string, unknown>) => ({
      ...request,
      graph: { ...request.graph, nodes: request.graph.nodes.map((n, k) => (k === 0 ? { ...n, ...patch } : n)) },
    });
    expect(() => decodeText(withNode({ op: 'LSTM' }))).toThrow(/^node conv1 has op "LSTM", which this agent does not know/);
    expect(() => decodeText(withNode({ kernel: [3] }))).toThrow('node conv1 (Conv).kernel must be two whole numbers >= 1, got [3].');
    expect(() => decodeText(withNode({ padding: { kind: 'explicit', pads: [1, 1] } }))).toThrow(/pads must be four whole numbers/);
    expect(() => decodeText(withNode({ extra: 1 }))).toThrow(/^node conv1 has an unknown field "extra"/);
    expect(() => decodeText({ ...request, run: { ...request.run, repetitions: 0 } })).toThrow(/^run.repetitions must be a whole number from 1/);
    const badData = { ...request.graph.tensors[1], data: { array: 'Float32Array', base64: 'not base64!' } };
    expect(() => decodeText({ ...request, graph: { ...request.graph, tensors: [request.graph.tensors[0], badData] } })).toThrow(/data.base64 is not base64 text/);
  });
});

describe('the checks before a job runs', () => {
  it('accepts what the client sends, for both approaches', () => {
    for (const planner of ['offsets/greedy-by-size', 'shared-objects/greedy-by-size-improved', 'shared-objects/naive']) {
      const checked = checkJob(decodeText(jobRequest(buildZooModel('zoo:blazeface'), planner)), CPU, 2 ** 32);
      expect(checked.alignment).toBe(64);
    }
  });

  it('hands on the planned graph (transformed, reordered) with record options that apply nothing again', () => {
    const records = { fuseActivations: true, order: 'memory-aware' as const };
    const request = jobRequest(interleavedBranches(), 'offsets/greedy-by-size', {}, 64, records);
    const checked = checkJob(decodeText(request), CPU, 2 ** 32);
    // A CPU job plans the kernels' scratch too (jobRequest asks the backend, as buildJob does).
    const planned = plannedProblem(weightedGraph(interleavedBranches(), 'seeded', 1), { ...records, elementSize: 4, scratch: true });
    expect(checked.job.graph.nodes.map((n) => n.name)).toEqual(planned.graph.nodes.map((n) => n.name));
    expect(checked.job.records).toEqual({ scratch: true });
    expect(checked.problem).toEqual(planned.problem);
    // What runs gives the records the plan was verified against.
    expect(graphToProblem(checked.job.graph, { ...checked.job.records, elementSize: 4 })).toEqual(checked.problem);
  });

  it("refuses a job for a backend that plans its kernels' scratch when the job's records leave it out", () => {
    const planned = plannedProblem(weightedGraph(tinyGraph(), 'seeded', 1), { elementSize: 4 });
    const plan = wirePlan(planAndVerify(findPlanner('offsets/greedy-by-size'), planned.problem, { alignment: 64 }), planned.problem, 64);
    const run = { backend: 'cpu', repetitions: 1, warmup: 0, seed: 1, verifyByExecution: false };
    const job = decodeJob(encodeJob({ graph: planned.graph, records: {}, plan, run }));
    expect(() => checkJob(job, [{ kind: 'cpu', requiredAlignment: 4, plansScratch: true }], 2 ** 32)).toThrow(
      "the cpu backend plans its kernels' scratch: send the job with records.scratch, planned with those records.",
    );
  });

  it('re-derives the steps of a scheduled job from the planned graph it is sent: same records, same plan', () => {
    // As the agent placement sends it: the planned graph, laid out step by step, and its record options.
    const records = { schedule: 'levels' as const, order: 'memory-aware' as const };
    const planned = plannedProblem(weightedGraph(interleavedBranches(), 'seeded', 1), { ...records, elementSize: 4 });
    const plan = wirePlan(planAndVerify(findPlanner('offsets/greedy-by-size'), planned.problem, { alignment: 64 }), planned.problem, 64);
    const run = { backend: 'cpu', repetitions: 2, warmup: 1, seed: 1, verifyByExecution: true };
    const checked = checkJob(decodeJob(encodeJob({ graph: planned.graph, records: plannedGraphOptions(records), plan, run })), CPU, 2 ** 32);
    expect(checked.job.records).toEqual({ schedule: 'levels' });
    expect(checked.problem).toEqual(planned.problem);
    expect(checked.problem.operatorCount).toBeLessThan(interleavedBranches().nodes.length);
  });

  it('refuses a graph whose shapes do not check', () => {
    const request = jobRequest(tinyGraph());
    const tensors = request.graph.tensors.map((t) => (t.name === 'b' ? { ...t, shape: [1, 8, 8, 9] } : t));
    expect(refusal({ ...request, graph: { ...request.graph, tensors } })).toBe('node relu (Relu) declares output b as [1,8,8,9] but its inputs give [1,8,8,8].');
    const conv = request.graph.nodes.map((n) => (n.name === 'conv2' ? { ...n, kernel: [9, 9], padding: { kind: 'valid' } } : n));
    expect(refusal({ ...request, graph: { ...request.graph, nodes: conv } })).toMatch(/^node conv2 \(Conv\)/);
    const dangling = request.graph.nodes.map((n) => (n.name === 'add' ? { ...n, inputs: ['c', 'ghost'] } : n));
    expect(refusal({ ...request, graph: { ...request.graph, nodes: dangling } })).toBe('node add names tensor ghost, which the graph does not list.');
  });

  it('refuses a plan the verifier rejects, and a plan for other records', () => {
    const request = jobRequest(tinyGraph());
    // Every record at offset 0: live tensors overlap.
    const planted = { ...request.plan, offsets: request.plan.offsets!.map(() => 0) };
    expect(refusal({ ...request, plan: planted })).toMatch(/^the plan of offsets\/greedy-by-size fails the verifier: records \S+ and \S+ are live together .* but share bytes/);
    const unaligned = { ...request.plan, offsets: request.plan.offsets!.map((o, k) => (k === 0 ? o + 2 : o)) };
    expect(refusal({ ...request, plan: unaligned })).toMatch(/not a multiple of the alignment 64/);
    const lying = { ...request.plan, footprint: request.plan.footprint - 64 };
    expect(refusal({ ...request, plan: lying })).toMatch(/claims a footprint of/);
    const other = { ...request.plan, records: [...request.plan.records].reverse() };
    expect(refusal({ ...request, plan: other })).toMatch(/^the plan's record 0 is \S+ but the graph's is \S+\.$/);
    expect(refusal({ ...request, plan: { ...request.plan, alignment: 2 } })).toBe('the plan is aligned to 2 bytes but the cpu backend needs offsets aligned to 4.');
    expect(refusal({ ...request, run: { ...request.run, backend: 'webgpu' } })).toBe('this agent serves cpu; the job asks for "webgpu".');
  });

  it('refuses constants without float32 values and networks too large for the machine', () => {
    const request = jobRequest(tinyGraph());
    const tensors = request.graph.tensors.map((t) => (t.name === 'w1' ? { ...t, data: undefined } : t));
    expect(refusal({ ...request, graph: { ...request.graph, tensors } })).toBe('constant w1 carries no values; jobs run with float32 values for every constant.');
    const short = request.graph.tensors.map((t) => (t.name === 'b1' ? { ...t, data: { array: 'Float32Array', base64: 'AAAAAA==' } } : t));
    expect(refusal({ ...request, graph: { ...request.graph, tensors: short } })).toBe('constant b1 has 1 values for shape [8] (8 elements).');
    expect(() => checkJob(decodeText(request), CPU, 1000)).toThrow(WireError);
    expect(() => checkJob(decodeText(request), CPU, 1000)).toThrow(/more than the 0\.0 MiB this agent allows a job/);
  });
});
