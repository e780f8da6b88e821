import { getHeapStatistics } from 'node:v8';
import type { Plan } from '../../core/plans.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import type { Graph, Tensor } from '../../graph/ir.ts';
import { plannedProblem } from '../../graph/lifetimes.ts';
import { streamSeededWeights } from '../../graph/seeded-weights.ts';
import type { Steps } from '../../graph/schedule.ts';
import type { Problem } from '../../core/problem.ts';
import { acceptReceived } from '../../planners/plan-handover.ts';
import type { VerifiedResult } from '../../planners/plan-and-verify.ts';
import type { Backend, PreparedNetwork, PrepareRequest, StreamingRequest, WeightStream } from '../../backends/backend.ts';
import { budgetedRun } from '../../backends/budgeted/budget-share.ts';
import { budgetedNetwork } from '../../graph/budget-records.ts';
import type { MeasureResult } from '../../backends/execution-report.ts';
import { readRss } from '../process-memory.ts';
import type { BudgetPhase } from '../budgeted/adapt-budget.ts';
import { type ConstantsFile, streamConstantsFile, withConstantsFile } from './constants-file.ts';
import type { MeasuredContext } from './measured-child.ts';
import { findBackend } from '../../backends/registry.ts';
import { seededInputs, weightedGraph } from '../../backends/run-data.ts';

/**
 * One measured execution, as it crosses into a process of its own: the source graph, how
 * it becomes records (the process re-derives the planned graph and its records, and
 * verifies the plan against them), the plan, and how to run it.
 */
export interface MeasureJob {
  /**
   * The graph as the source gives it, its constants without values: with `seededWeights`
   * the process seeds them itself (the same values as the harness's); with `constantsFile`
   * it reads the graph's own from that file (constants-file.ts). Either way after its
   * baseline, straight into a backend that writes its weights itself.
   */
  readonly graph: Graph;
  readonly seededWeights?: number;
  readonly constantsFile?: ConstantsFile;
  readonly records: RecordOptions;
  readonly planner: string;
  readonly plan: Plan;
  readonly alignment: number;
  /** A registered backend's kind. */
  readonly backend: string;
  readonly warmup: number;
  /** Timed inferences; 0 runs one untimed inference for the outputs alone. */
  readonly repetitions: number;
  /** Seed of the inputs. */
  readonly seed: number;
  /** Threads of a backend that runs steps on a pool (cpu-parallel); default the number of cores. */
  readonly workers?: number;
  /** After the timed inferences, one more with every operator timed (a trace of the run), where the backend can. */
  readonly timeline?: boolean;
  /** Pin the measured process to one core before it runs (single-thread backends; pin-core.ts). */
  readonly pinCore?: boolean;
  /**
   * The budgeted variant (a backend that streams weights): the weights stay in the file the
   * request names, and the records are the budgeted network's (graph/budget-records.ts),
   * sliced again here for the buffer `budget` leaves (budget-share.ts); without `budget` the
   * buffer is the plan's footprint.
   */
  readonly streaming?: StreamingRequest;
  readonly budget?: number;
  /**
   * The budgeted variant only: budgets the run changes to after its first phase, one phase
   * each (budgeted/adapt-budget.ts), `repetitions` inferences apiece.
   */
  readonly adapt?: readonly BudgetPhase[];
}

export type ToMeasureProcess = { readonly type: 'job'; readonly job: MeasureJob } | { readonly type: 'go' };

interface JobNetwork {
  readonly source: Graph;
  readonly graph: Graph;
  readonly problem: Problem;
  readonly steps?: Steps;
  readonly plan: VerifiedResult;
  readonly weights?: WeightStream;
}

/**
 * The budgeted variant's network: the budgeted records of the graph (no weight values: they
 * stream from the file), and the job's plan verified against them, in the buffer the budget
 * leaves (the problem carries it as its budget, so the verifier holds the plan to it).
 */
function streamedNetwork(job: MeasureJob, streaming: StreamingRequest): JobNetwork {
  const network = job.budget === undefined ? budgetedNetwork(job.graph, job.records) : budgetedRun(job.graph, job.budget, job.records).network;
  const plan = acceptReceived(job, network.problem, job.alignment, 'in the measured process');
  const buffer = network.problem.budget ?? plan.footprint;
  if (streaming.bufferBytes !== buffer) throw new Error(`the job asks for a buffer of ${streaming.bufferBytes} bytes; its budget leaves ${buffer}.`);
  return { source: job.graph, graph: network.graph, problem: network.problem, plan };
}

/** Bytes of released weights after which they are collected. */
const COLLECT_EVERY = 4 * 2 ** 20;

/** Bytes of garbage that survived the young generation's collections, after which the inference loop collects the whole heap. */
const LAG_BYTES = 2 ** 20;

/**
 * The network a job runs, as the measured process derives it: the source graph with its
 * weights (seeded here, or the values that followed the job), the planned graph and its
 * records under the job's record options, and the job's plan verified against them. For a
 * backend that writes weights itself (Backend.writesWeights), seeded weights are not made
 * here but streamed to it (`weights`), so that no whole copy of them exists beside its own.
 */
export function jobNetwork(job: MeasureJob, backend?: Pick<Backend, 'writesWeights'>): JobNetwork {
  if (job.streaming !== undefined) return streamedNetwork(job, job.streaming);
  const { seededWeights: seed, constantsFile: file } = job;
  // Where the weights come from: made here (seeded) or read from the file, streamed into a backend that writes its own copy.
  const stream: WeightStream | undefined = seed !== undefined ? (sink) => streamSeededWeights(job.graph, seed, sink) : file !== undefined ? (sink) => streamConstantsFile(file, sink) : undefined;
  const streamed = stream !== undefined && backend?.writesWeights === true;
  const source = streamed ? job.graph : seed !== undefined ? weightedGraph(job.graph, 'seeded', seed) : file !== undefined ? withConstantsFile(job.graph, file) : job.graph;
  const { graph, problem, steps } = plannedProblem(source, { ...job.records, elementSize: 4 });
  const plan = acceptReceived(job, problem, job.alignment, 'in the measured process');
  return { source, graph, problem, steps, plan, ...(streamed ? { weights: stream } : {}) };
}

/**
 * The job's network prepared by its backend. The graphs stay inside this function, so that
 * once it returns only what the backend keeps is left: each constant's values are let go
 * as the backend says it holds its own form, and collected every few MiB, so that raw and
 * repacked weights never pile up.
 *
 * A backend that compiles code for what it runs (Backend.dryRun) first runs the network dry,
 * and the baseline is taken again after it (`rebaseline`): the job received and checked, its
 * kernels compiled for these shapes, are the runtime's, as a native runtime's code is in its
 * binary; what follows the baseline is the network's memory alone. What the dry run left (the
 * job's description, compiled code) is measured as the difference of the two baselines
 * (`job`). A kept dry run runs on the measured run's inputs, made before it; a released one
 * (dryRun below) makes its own, and the measured run's are made after the network is
 * prepared, inside the measured window.
 */
async function prepareNetwork(
  job: MeasureJob,
  backend: Backend,
  context: Pick<MeasuredContext, 'baselineRss' | 'collect'> & Partial<Pick<MeasuredContext, 'rebaseline'>>,
): Promise<{ prepared: PreparedNetwork; inputs: Map<string, Float32Array>; rebaselined?: number; dry?: PreparedNetwork }> {
  const { source, graph, problem, steps, plan, weights } = jobNetwork(job, backend);
  const base = {
    graph,
    problem,
    plan,
    ...(steps ? { steps } : {}),
    ...(weights ? { weights } : {}),
    ...(job.workers === undefined ? {} : { workers: job.workers }),
    // The records were planned for operators split over this many threads (a scratch band each).
    ...(job.records.threads === undefined ? {} : { threads: job.records.threads }),
    ...(job.streaming ? { streaming: job.streaming } : {}),
  };
  let baselineRss: number | undefined;
  let dry: PreparedNetwork | undefined;
  // A released dry run makes inputs of its own, and the measured run's come after the
  // network is prepared; otherwise they are made first (a kept dry run runs on them).
  let inputs = backend.dryRun?.network === 'released' ? undefined : seededInputs(graph, job.seed);
  if (backend.dryRun !== undefined && context.rebaseline !== undefined) {
    if (inputs !== undefined) {
      // No release: the graph keeps its values for the run that is measured.
      dry = await backend.prepare(base);
      for (let k = 0; k < backend.dryRun.inferences; k++) await dry.infer(inputs);
    } else await releasedDryRun(backend, base, backend.dryRun.inferences, job.seed);
    baselineRss = await context.rebaseline();
  }
  const holders = [source.tensors, graph.tensors] as Map<string, Tensor>[];
  let uncollected = 0;
  const release = (name: string): void => {
    for (const tensors of holders) {
      const tensor = tensors.get(name);
      if (tensor?.data === undefined) continue;
      uncollected += tensor.data.byteLength;
      tensors.set(name, { ...tensor, data: undefined });
    }
    if (uncollected >= COLLECT_EVERY) {
      context.collect();
      uncollected = 0;
    }
  };
  const prepared = await backend.prepare({ ...base, release });
  inputs ??= seededInputs(graph, job.seed);
  return { prepared, inputs, ...(baselineRss === undefined ? {} : { rebaselined: baselineRss }), ...(dry ? { dry } : {}) };
}

/**
 * A dry run let go of before the baseline is read again: the network prepared, run on inputs
 * of its own, disposed. In a function of its own, so that nothing of it is reachable once it
 * returns.
 */
async function releasedDryRun(backend: Backend, request: PrepareRequest, inferences: number, seed: number): Promise<void> {
  const dry = await backend.prepare(request);
  const inputs = seededInputs(request.graph, seed);
  try {
    for (let k = 0; k < inferences; k++) await dry.infer(inputs);
  } finally {
    dry.dispose();
  }
}

/**
 * Measures a job in this process (the measured process calls it): the network prepared
 * inside the plan, `warmup` then `repetitions` inferences, and what it holds. `collect` and
 * `collectYoung` are the garbage collector, whole and of the young generation, where the
 * process exposes it (else nothing).
 */
export async function measure(
  job: MeasureJob,
  context: Pick<MeasuredContext, 'baselineRss' | 'runtimeRss' | 'collect' | 'collectYoung'> & Partial<Pick<MeasuredContext, 'rebaseline'>>,
): Promise<MeasureResult> {
  const { runtimeRss, collect, collectYoung } = context;
  const backend = findBackend(job.backend);
  // Held through `ready`, never a local of its own: a network whose budget changes is let go
  // of mid-run (adapt-budget.ts), and nothing here may keep its buffer alive.
  const ready: { prepared: PreparedNetwork | undefined } & Omit<Awaited<ReturnType<typeof prepareNetwork>>, 'prepared'> = await prepareNetwork(job, backend, context);
  const { inputs, rebaselined, dry } = ready;
  const network = (): PreparedNetwork => ready.prepared as PreparedNetwork;
  const baselineRss = rebaselined ?? context.baselineRss;
  // A pool's threads started in the dry run are the runtime's (the backend says so), not the job's.
  const jobRss = rebaselined === undefined ? undefined : rebaselined - context.baselineRss - (network().memory().runtime ?? 0);
  collect();
  // Inferences allocate little (the outputs come back in the network's own arrays; 8-33 KiB
  // an inference of BlazeFace, SqueezeNet or MobileNet v2 on the CPU); what
  // garbage one leaves is collected before the next, outside the timed part, so that the
  // peak is the network's and not the collector's lag: the young generation after each, the
  // whole heap once what survived that has grown by LAG_BYTES. A whole collection after each
  // inference slowed the next one (BlazeFace, 40 inferences, medians of five rounds: 3.6 ms
  // back to back, 4.2-5.2 with a full collection between, 3.6 with a young one), where the
  // peers (peer-session.ts) run theirs back to back.
  // Between inferences the event loop gets a turn too: a CPU inference settles at once, and
  // without a turn the process would never see its harness go away (IPC disconnect).
  let collected = getHeapStatistics().used_heap_size;
  const between = async (): Promise<void> => {
    collectYoung();
    if (getHeapStatistics().used_heap_size > collected + LAG_BYTES) {
      collect();
      collected = getHeapStatistics().used_heap_size;
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  let outputs = new Map<string, Float32Array>();
  for (let k = 0; k < job.warmup; k++) {
    outputs = await network().infer(inputs);
    await between();
  }
  const samples: number[] = [];
  const deviceSamples: number[] = [];
  const stepMs: (readonly number[])[] = [];
  const busyMs: (readonly number[])[] = [];
  for (let k = 0; k < job.repetitions; k++) {
    const started = performance.now();
    outputs = await network().infer(inputs);
    samples.push(performance.now() - started);
    const deviceMs = network().lastDeviceMs;
    if (deviceMs !== undefined) deviceSamples.push(deviceMs);
    const run = network().parallel?.lastRun();
    if (run !== undefined) {
      stepMs.push(run.stepMs);
      busyMs.push(run.busyMs);
    }
    await between();
  }
  if (job.warmup + job.repetitions === 0) outputs = await network().infer(inputs);
  // The inputs this process gives the network count with its inputs and outputs.
  let inputBytes = 0;
  for (const values of inputs.values()) inputBytes += values.byteLength;
  // Memory is read before the traced inference, so that asking for a trace changes no figure.
  const held = network().memory();
  const streaming = network().streamingStats?.();
  const rss = readRss();
  const spans = job.timeline ? await network().trace?.(inputs) : undefined;
  const pool = network().parallel;
  const parallel = pool === undefined ? undefined : { workers: pool.workers, stepSizes: pool.stepSizes, poolRss: pool.poolRss, stepMs, busyMs };
  // The runtime's start-up (measured before the baseline) is the backend's own unless it reports one.
  const memory = { ...held, io: held.io + inputBytes, runtime: held.runtime ?? runtimeRss, ...(jobRss !== undefined ? { job: jobRss } : {}) };
  dry?.dispose();
  // The outputs are views of the network's buffer: a copy, so that they do not keep it alive once let go of.
  if (job.adapt !== undefined) outputs = new Map([...outputs].map(([name, values]) => [name, values.slice()]));
  // The adapter plans again, so it brings the planners: imported where a run adapts (a budgeted process loaded it before its baseline, measure-process.ts).
  const adaptations =
    job.adapt !== undefined && job.streaming !== undefined
      ? await (await import('../budgeted/adapt-budget.ts')).adaptBudgets(backend, ready, job.adapt, {
          graph: job.graph,
          records: job.records,
          planner: job.planner,
          alignment: job.alignment,
          streaming: job.streaming,
          repetitions: job.repetitions,
          inputs,
          collect,
          between,
        })
      : undefined;
  if (adaptations === undefined) network().dispose();
  return {
    samples,
    deviceSamples,
    outputs,
    memory,
    baselineRss,
    peakRss: rss.peakRss,
    rssMethod: rss.method,
    device: await backend.device(),
    ...(parallel ? { parallel } : {}),
    ...(streaming ? { streaming } : {}),
    ...(spans ? { spans } : {}),
    ...(adaptations ? { adaptations } : {}),
  };
}
