import type { Graph } from '../graph/ir.ts';
import { plannedProblem, type RecordOptions } from '../graph/lifetimes.ts';
import { planOf, runnablePlan, type ReceivedPlan } from '../planners/plan-handover.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import type { Planner } from '../planners/planner.ts';
import { findPlanner } from '../planners/registry.ts';
import type { Problem } from '../core/problem.ts';
import type { Backend, DeviceInfo, OperatorSpan } from './backend.ts';
import { measureIsolated, type WeightsSource } from './isolation/isolated.ts';
import type { MeasureResult } from './isolation/measure-job.ts';
import { summarizeLatency, type LatencySummary } from './latency.ts';
import { relativeError, runOnnxRuntime } from './onnxruntime/onnxruntime-peer.ts';
import { parallelReport, type ParallelReport } from './parallel-report.ts';
import { bitIdentical, seededInputs, weightedGraph, withoutWeights } from './run-data.ts';
import { findBackend } from './registry.ts';

export { bitIdentical, seededInputs, weightedGraph } from './run-data.ts';

export interface ExecuteOptions {
  readonly backend: Backend;
  /** The planner to plan with here, or a plan made elsewhere (an agent's job), which is verified here and not made again. */
  readonly planner: Planner | ReceivedPlan;
  readonly repetitions: number;
  readonly warmup: number;
  /** Seed of the weights (when seeded) and of the input. */
  readonly seed: number;
  /** 'seeded' (default): seeded random weights; 'file': the source's own float weights. */
  readonly weights?: 'seeded' | 'file';
  /** How the graph becomes records; the element size is always 4 (fp32 execution). */
  readonly records?: RecordOptions;
  /** Bytes; raised to what the backend requires (4 for the CPU's float32 views, 256 on most WebGPU devices). */
  readonly alignment?: number;
  /** Also run inside the naive plan and compare outputs bit for bit. */
  readonly verifyByExecution?: boolean;
  /** Also time onnxruntime-node (single thread) on the same network and inputs. */
  readonly peer?: boolean;
  /** Threads of a backend that runs steps on a pool (cpu-parallel); default the number of cores. */
  readonly workers?: number;
  /** The browser backend: the browser to start (a path or a name on PATH); default the first found. */
  readonly browser?: string;
  /**
   * The outputs of naiveReference for this network and seed, to compare with instead of
   * running the reference again (a study that runs many plans of one network runs it once).
   */
  readonly reference?: ReadonlyMap<string, Float32Array>;
  /** Also time every operator of one more inference (the report's `timeline`: memplan exec --trace). */
  readonly timeline?: boolean;
  /** Pin the measured process to one core (single-thread backends); its device info says where, or why not. */
  readonly pinCore?: boolean;
}

/** One traced inference: its operators (and loads) and the problem whose records they ran in. */
export interface Timeline {
  readonly spans: readonly OperatorSpan[];
  readonly problem: Problem;
}

/** onnxruntime-node beside our executor: its latency, ours over its, and how far outputs differ. */
export interface PeerReport {
  readonly runtime: string;
  readonly latencyMs: LatencySummary;
  /** Our median over the peer's. */
  readonly ratio: number;
  /** Largest difference over the largest magnitude of the peer's outputs. */
  readonly relativeError: number;
}

/**
 * Memory of one execution (bytes): what the plan asks for, what the backend allocated
 * (counted where it allocates), and what the process that ran the plan alone measured.
 */
export interface MemoryReport {
  /** The plan's footprint: the arena, or the sum of the objects. */
  readonly planned: number;
  /** Allocated for the planned intermediate tensors (arena or object buffers). */
  readonly intermediates: number;
  /** Buffers of graph inputs and outputs the plan does not cover. */
  readonly io: number;
  /** Held for weights, one copy (the form the kernels compute with). */
  readonly weights: number;
  /** Kernel scratch the plan does not hold (im2col tiles, staged operands, SIMD engine memory): its high-water. */
  readonly scratch: number;
  /**
   * The executor's own start-up, measured in the same process before its baseline: its code
   * compiled and its heap settled by a warm-up run, a pool's threads. Not part of peakRssDelta
   * (a native runtime's is in its binary); absent in runs from before it was measured.
   */
  readonly runtime?: number;
  /**
   * The job received and checked and a dry run of it (kernels compiled for its shapes; its
   * memory let go), left in the process before the baseline: not part of peakRssDelta.
   * Absent where the backend runs no dry run.
   */
  readonly job?: number;
  /** Resident memory of the measured process after start-up and imports, before the network. */
  readonly baselineRss: number;
  /** Its peak resident memory through preparation and every inference. */
  readonly peakRss: number;
  /** peakRss - baselineRss: the figure charts use. */
  readonly peakRssDelta: number;
  /** peakRssDelta less intermediates, io, weights, and scratch: what the figures above do not account for. */
  readonly rest: number;
  /** How the peak was read, and that it was read in an isolated process. */
  readonly method: string;
  /**
   * Figures the backend cannot measure where it runs (a browser page cannot read its
   * process's memory): NaN here, null in JSON, never estimated.
   */
  readonly unavailable?: readonly ('baselineRss' | 'peakRss' | 'peakRssDelta' | 'rest')[];
  /** Device backends: device buffers by what they hold (the figures above are these, for a device). */
  readonly device?: { readonly intermediates: number; readonly io: number; readonly weights: number; readonly other: number };
}

/** The JSON of `memplan exec`. */
export interface ExecuteReport {
  readonly backend: string;
  readonly planner: string;
  readonly footprint: number;
  readonly latencyMs: LatencySummary;
  /**
   * The device's own time per inference (GPU timestamp queries: the dispatches alone, no
   * upload or readback), when the backend measures it for every repetition; `device.timing`
   * says how it was measured.
   */
  readonly deviceMs?: LatencySummary;
  /** Outputs bit-identical to the naive plan's (run in a process of its own); null when not checked. */
  readonly matchesNaive: boolean | null;
  readonly memory: MemoryReport;
  /** Deprecated alias of memory.peakRss. */
  readonly peakRssBytes: number;
  readonly device: DeviceInfo;
  readonly peer?: PeerReport;
  /** A backend that runs a step's operators at once (cpu-parallel): its steps, their timings, and how busy its workers were. */
  readonly parallel?: ParallelReport;
  /** With the `timeline` option: every operator of one inference, where the backend can time them (not part of exec's JSON). */
  readonly timeline?: Timeline;
}

/** The memory report of a measured process's result. */
export function memoryReport(planned: number, result: MeasureResult): MemoryReport {
  const { intermediates, io, weights, scratch, device, job } = result.memory;
  const runtime = result.memory.runtime ?? 0;
  const peakRssDelta = result.peakRss - result.baselineRss;
  return {
    planned,
    intermediates,
    io,
    weights,
    scratch,
    runtime,
    ...(job !== undefined ? { job } : {}),
    baselineRss: result.baselineRss,
    peakRss: result.peakRss,
    peakRssDelta,
    rest: peakRssDelta - intermediates - io - weights - scratch,
    method: `${result.rssMethod}; measured in an isolated process that ran this plan alone`,
    ...(device ? { device } : {}),
  };
}

/**
 * The graph this process plans (and hands to the peer runtime): with seeded weights their
 * values are made only where they are used here (the peer); the measured process seeds its
 * own, and seeding a large network takes longer than planning and running it.
 */
function harnessGraph(source: Graph, weights: 'seeded' | 'file', seed: number, valuesHere: boolean): Graph {
  return weights === 'seeded' && !valuesHere ? withoutWeights(source) : weightedGraph(source, weights, seed);
}

/**
 * The record options a backend runs a network with: fp32 tensors, and its kernels' scratch
 * as records of their own where it plans them (Backend.plansScratch).
 */
export function executionRecords(backend: Pick<Backend, 'plansScratch'>, records: RecordOptions = {}): RecordOptions {
  const { scratch: _given, ...rest } = records;
  return { ...rest, elementSize: 4, ...(backend.plansScratch ? { scratch: true } : {}) };
}

/**
 * The outputs every plan of a network must reproduce bit for bit: the naive plan, one
 * operator at a time (the sequential schedule), in a process of its own, on the backend
 * that checks `options.backend` (itself; the sequential CPU for a parallel one). They do
 * not depend on the planner, the schedule or the repetitions of `options`.
 */
export async function naiveReference(source: Graph, options: Omit<ExecuteOptions, 'planner' | 'repetitions' | 'warmup'>): Promise<Map<string, Float32Array>> {
  const weightsKind = options.weights ?? 'seeded';
  const weighted = harnessGraph(source, weightsKind, options.seed, false);
  const reference = options.backend.reference === undefined ? options.backend : findBackend(options.backend.reference);
  const records: RecordOptions = executionRecords(reference, { ...options.records, schedule: 'sequential' });
  const alignment = Math.max(await options.backend.requiredAlignment(), options.alignment ?? 1);
  const naive = planAndVerify(findPlanner('shared-objects/naive'), plannedProblem(weighted, records).problem, { alignment });
  const weights: WeightsSource = weightsKind === 'seeded' ? { seeded: options.seed } : { values: 'from-graph' };
  const job = { records, alignment, backend: reference.kind, seed: options.seed, planner: naive.planner, plan: planOf(naive), warmup: 0, repetitions: 0 };
  return (await measureIsolated(weighted, weights, job)).outputs;
}

/**
 * Runs the graph inside one verified plan: latency and memory, measured in a process that
 * runs this plan alone; optionally the proof by execution against naive, run in another
 * process, and onnxruntime-node beside it in this one. What runs is the planned graph
 * (record options' transforms and operator order applied), the graph the plan's records
 * come from: a plan holds only for the order it was made for.
 */
export async function executeGraph(source: Graph, options: ExecuteOptions): Promise<ExecuteReport> {
  // A backend that measures whole jobs where it runs (a browser page) takes the job as it is.
  if (options.backend.execute !== undefined) return options.backend.execute(source, options);
  const weightsKind = options.weights ?? 'seeded';
  const weighted = harnessGraph(source, weightsKind, options.seed, options.peer === true);
  const records = executionRecords(options.backend, options.records);
  const { graph, problem } = plannedProblem(weighted, records);
  const alignment = Math.max(await options.backend.requiredAlignment(), options.alignment ?? 1);
  const plan = runnablePlan(options.planner, problem, alignment);
  // The process re-derives the records and checks the plan it receives with the verifier (plan-handover.ts).
  const weights: WeightsSource = weightsKind === 'seeded' ? { seeded: options.seed } : { values: 'from-graph' };
  const job = { records, alignment, backend: options.backend.kind, seed: options.seed };
  const workers = options.workers === undefined ? {} : { workers: options.workers };
  const extras = { ...workers, ...(options.timeline ? { timeline: true } : {}), ...(options.pinCore ? { pinCore: true } : {}) };
  const measured = await measureIsolated(weighted, weights, { ...job, ...extras, planner: plan.planner, plan: planOf(plan), warmup: options.warmup, repetitions: options.repetitions });
  let matchesNaive: boolean | null = null;
  if (options.reference !== undefined) matchesNaive = bitIdentical(measured.outputs, options.reference);
  else if (options.verifyByExecution ?? true) matchesNaive = bitIdentical(measured.outputs, await naiveReference(source, options));
  const latencyMs = summarizeLatency(measured.samples, options.seed);
  let peer: PeerReport | undefined;
  if (options.peer) {
    const run = await runOnnxRuntime(graph, seededInputs(graph, options.seed), { warmup: options.warmup, repetitions: options.repetitions });
    const peerLatency = summarizeLatency(run.samples, options.seed);
    peer = { runtime: run.runtime, latencyMs: peerLatency, ratio: latencyMs.median / peerLatency.median, relativeError: relativeError(measured.outputs, run.outputs) };
  }
  const memory = memoryReport(plan.footprint, measured);
  const { deviceSamples, samples } = measured;
  return {
    backend: options.backend.kind,
    planner: plan.planner,
    footprint: plan.footprint,
    latencyMs,
    ...(deviceSamples.length === samples.length && samples.length > 0 ? { deviceMs: summarizeLatency(deviceSamples, options.seed) } : {}),
    matchesNaive,
    memory,
    peakRssBytes: memory.peakRss,
    device: measured.device,
    ...(peer ? { peer } : {}),
    ...(measured.parallel ? { parallel: parallelReport(measured.parallel) } : {}),
    ...(measured.spans ? { timeline: { spans: measured.spans, problem } } : {}),
  };
}
