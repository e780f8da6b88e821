import type { Plan } from '../../core/plans.ts';
import { budgetedNetwork, type BudgetedNetwork } from '../../graph/budget-records.ts';
import type { Graph } from '../../graph/ir.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import { acceptReceived } from '../../planners/plan-handover.ts';
import type { VerifiedResult } from '../../planners/plan-and-verify.ts';
import type { PrepareRequest, StreamingRequest, StreamingStats } from '../backend.ts';
import type { MeasuredContext } from '../isolation/measured-child.ts';
import type { MeasureResult } from '../isolation/measure-job.ts';
import { readRss } from '../process-memory.ts';
import { seededInputs } from '../run-data.ts';
import { budgetedBackend } from './budgeted-backend.ts';
import { budgetedRun } from './budget-share.ts';

/**
 * One budgeted execution, as it crosses into a measured process of its own: the source
 * graph WITHOUT weight values (they stay in the weights file, which is the point), how it
 * becomes budgeted records (the process slices and sizes them again from the budget and
 * verifies the plan against them), the plan, and how to run it.
 */
export interface BudgetedJob {
  readonly graph: Graph;
  readonly records: RecordOptions;
  /** The budget of the whole run (budget-share.ts: the buffer is what it leaves). Absent: no budget (no slicing; the buffer is the plan's footprint). */
  readonly budget?: number;
  readonly planner: string;
  readonly plan: Plan;
  readonly alignment: number;
  readonly streaming: StreamingRequest;
  readonly warmup: number;
  readonly repetitions: number;
  /** Seed of the inputs. */
  readonly seed: number;
  /** After the timed inferences, one more with every step and load timed (a trace of the run). */
  readonly timeline?: boolean;
}

export type BudgetedMeasure = MeasureResult & { readonly streaming: StreamingStats };

/**
 * Inferences of the dry run: two compile what the network runs for the first time (its
 * layer kinds and shapes). More (4, 8 and 16 were tried) left the peak where it was: V8
 * goes on optimizing functions as they get hot, whatever ran before (budget-share.ts's
 * reserve covers that).
 */
const DRY_INFERENCES = 2;

/** The job's network as the measured process derives it, and the job's plan verified against it (in the buffer the budget leaves). */
function jobNetwork(job: BudgetedJob): { network: BudgetedNetwork; plan: VerifiedResult } {
  const network = job.budget === undefined ? budgetedNetwork(job.graph, job.records) : budgetedRun(job.graph, job.budget, job.records).network;
  // The problem carries the buffer as its budget (none without one): the verifier holds the plan to it.
  const plan = acceptReceived(job, network.problem, job.alignment, 'in the measured process');
  const buffer = network.problem.budget ?? plan.footprint;
  if (job.streaming.bufferBytes !== buffer) throw new Error(`the job asks for a buffer of ${job.streaming.bufferBytes} bytes; its budget leaves ${buffer}.`);
  return { network, plan };
}

/**
 * The network prepared in a buffer of its own and run DRY_INFERENCES times, then let go of
 * (the loader thread too lets go of that buffer and collects before it says so): what the
 * network's first runs compile stays in the process, the buffer and the inputs do not. In
 * a function of its own, so that nothing of it is reachable once it returns.
 */
async function dryRun(request: PrepareRequest, graph: Graph, seed: number): Promise<void> {
  const dry = await budgetedBackend.prepare(request);
  const inputs = seededInputs(graph, seed);
  try {
    for (let k = 0; k < DRY_INFERENCES; k++) await dry.infer(inputs);
  } finally {
    dry.dispose();
  }
}

/**
 * Runs a budgeted job in this (measured) process, by the method of isolation/measure-job.ts:
 * the job received and checked and run dry, the baseline taken again once the collector is
 * done (what that left is `memory.job`; the start-up before the first baseline, the loader
 * thread and the warm-up network, is `memory.runtime`); then the network prepared again in
 * a fresh buffer, the inputs made, warm-ups, then timed inferences, garbage collected and
 * the event loop given a turn between them, outside the timed part; then the outputs, what
 * the backend holds, the peak, and what loading cost. Unlike the CPU path the dry run's
 * memory is not held to the end: it is a second buffer of the budget's size, which would
 * double what the process holds; the loader and the collector give it back before the
 * baseline is read (a buffer freed late would show as a peak below the buffer).
 */
export async function measureBudgeted(job: BudgetedJob, context: MeasuredContext): Promise<BudgetedMeasure> {
  const { network, plan } = jobNetwork(job);
  const request: PrepareRequest = { graph: network.graph, problem: network.problem, plan, streaming: job.streaming };
  await dryRun(request, network.graph, job.seed);
  const baselineRss = await context.rebaseline();
  const prepared = await budgetedBackend.prepare(request);
  // The inputs this process gives the network are made inside the measured window: graph I/O is part of the budget.
  const inputs = seededInputs(network.graph, job.seed);
  context.collect();
  const between = async (): Promise<void> => {
    context.collect();
    await new Promise((resolve) => setImmediate(resolve));
  };
  let outputs = new Map<string, Float32Array>();
  for (let k = 0; k < job.warmup; k++) {
    outputs = await prepared.infer(inputs);
    await between();
  }
  const samples: number[] = [];
  for (let k = 0; k < job.repetitions; k++) {
    const started = performance.now();
    outputs = await prepared.infer(inputs);
    samples.push(performance.now() - started);
    await between();
  }
  if (job.warmup + job.repetitions === 0) outputs = await prepared.infer(inputs);
  let inputBytes = 0;
  for (const values of inputs.values()) inputBytes += values.byteLength;
  const held = prepared.memory();
  const streaming = (prepared.streamingStats as () => StreamingStats)();
  const rss = readRss();
  // After the figures above are read, so that asking for a trace changes none of them.
  const spans = job.timeline && prepared.trace ? await prepared.trace(inputs) : undefined;
  prepared.dispose();
  return {
    samples,
    deviceSamples: [],
    outputs,
    memory: { ...held, io: held.io + inputBytes, runtime: context.runtimeRss, job: baselineRss - context.baselineRss },
    baselineRss,
    peakRss: rss.peakRss,
    rssMethod: rss.method,
    device: await budgetedBackend.device(),
    streaming,
    ...(spans ? { spans } : {}),
  };
}
