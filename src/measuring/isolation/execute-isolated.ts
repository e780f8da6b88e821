import type { Graph } from '../../graph/ir.ts';
import { plannedProblem, type RecordOptions } from '../../graph/lifetimes.ts';
import { planOf, runnablePlan } from '../../planners/plan-handover.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import { findPlanner } from '../../planners/registry.ts';
import type { ExecuteOptions } from '../execute-options.ts';
import { memoryReport, type ExecuteReport, type PeerReport } from '../../backends/execution-report.ts';
import { summarizeLatency } from '../../backends/latency.ts';
import { runOnnxRuntime } from '../onnxruntime-peer.ts';
import { type PeerJob, peerJob, relativeError } from '../peer-session.ts';
import { runOnnxRuntimeWeb } from '../onnxruntime-web-peer.ts';
import { parallelReport } from '../../backends/parallel-report.ts';
import { findBackend } from '../../backends/registry.ts';
import { executionRecords } from '../../backends/execution-records.ts';
import { bitIdentical, seededInputs, weightedGraph, withoutWeights } from '../../backends/run-data.ts';
import { measureIsolated, type WeightsSource } from './isolated.ts';

/**
 * The graph this process plans (and hands to the peer runtime): with seeded weights their
 * values are made only where they are used here (the peer); the measured process seeds its
 * own, and seeding a large network takes longer than planning and running it.
 */
function harnessGraph(source: Graph, weights: 'seeded' | 'file', seed: number, valuesHere: boolean): Graph {
  return weights === 'seeded' && !valuesHere ? withoutWeights(source) : weightedGraph(source, weights, seed);
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
export async function executeIsolated(source: Graph, options: ExecuteOptions): Promise<ExecuteReport> {
  const weightsKind = options.weights ?? 'seeded';
  const weighted = harnessGraph(source, weightsKind, options.seed, options.peer === true || options.webPeer === true);
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
  // The peers run after ours, one at a time, on the same inputs and repetitions.
  const peers: PeerReport[] = [];
  const runs = { warmup: options.warmup, repetitions: options.repetitions };
  // One ONNX file and one set of inputs for every peer, made for the first.
  let onnx: PeerJob | undefined;
  for (const run of [options.peer ? runOnnxRuntime : undefined, options.webPeer ? runOnnxRuntimeWeb : undefined]) {
    if (run === undefined) continue;
    onnx ??= await peerJob(graph, seededInputs(graph, options.seed), records.threads ?? 1);
    const peerRun = await run(onnx, runs);
    const peerLatency = summarizeLatency(peerRun.samples, options.seed);
    peers.push({ runtime: peerRun.runtime, latencyMs: peerLatency, ratio: latencyMs.median / peerLatency.median, relativeError: relativeError(measured.outputs, peerRun.outputs) });
  }
  const peer = options.peer ? peers[0] : undefined;
  const memory = memoryReport(plan.footprint, measured);
  const { deviceSamples, samples } = measured;
  return {
    backend: options.backend.kind,
    planner: plan.planner,
    footprint: plan.footprint,
    latencyMs,
    samplesMs: [...samples],
    ...(deviceSamples.length === samples.length && samples.length > 0 ? { deviceMs: summarizeLatency(deviceSamples, options.seed), deviceSamplesMs: [...deviceSamples] } : {}),
    matchesNaive,
    memory,
    peakRssBytes: memory.peakRss,
    device: measured.device,
    ...(peer ? { peer } : {}),
    ...(peers.length > 0 ? { peers } : {}),
    ...(measured.parallel ? { parallel: parallelReport(measured.parallel) } : {}),
    ...(measured.spans ? { timeline: { spans: measured.spans, problem } } : {}),
  };
}
