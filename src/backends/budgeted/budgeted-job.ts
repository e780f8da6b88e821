import type { Plan } from '../../core/plans.ts';
import { budgetedNetwork } from '../../graph/budget-records.ts';
import type { Graph } from '../../graph/ir.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import { fixedPlanner } from '../../planners/fixed-planner.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import type { StreamingRequest, StreamingStats } from '../backend.ts';
import type { MeasuredContext } from '../isolation/measured-child.ts';
import type { MeasureResult } from '../isolation/measure-job.ts';
import { readRss } from '../process-memory.ts';
import { seededInputs } from '../run-data.ts';
import { budgetedBackend } from './budgeted-backend.ts';

/**
 * One budgeted execution, as it crosses into a measured process of its own: the source
 * graph WITHOUT weight values (they stay in the weights file, which is the point), how it
 * becomes budgeted records (the process slices and sizes them again from the budget and
 * verifies the plan against them), the plan, and how to run it.
 */
export interface BudgetedJob {
  readonly graph: Graph;
  readonly records: RecordOptions;
  /** Absent: no budget (no slicing; the buffer is the plan's footprint). */
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
 * Runs a budgeted job in this (measured) process, as isolation/measure-job.ts runs any
 * other: warm-ups, then timed inferences, garbage collected and the event loop given a
 * turn between them, outside the timed part; then the outputs, what the backend holds, the
 * peak, and what loading cost.
 */
export async function measureBudgeted(job: BudgetedJob, context: MeasuredContext): Promise<BudgetedMeasure> {
  const network = budgetedNetwork(job.graph, { ...job.records, ...(job.budget === undefined ? {} : { budget: job.budget }) });
  const plan = planAndVerify(fixedPlanner(job.planner, job.plan), network.problem, { alignment: job.alignment, ...(job.budget === undefined ? {} : { budget: job.budget }) });
  if (!plan.valid) throw new Error(`the plan of ${job.planner} fails the verifier in the measured process: ${plan.violations[0]?.message}`);
  const prepared = await budgetedBackend.prepare({ graph: network.graph, problem: network.problem, plan, streaming: job.streaming });
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
    memory: { ...held, io: held.io + inputBytes },
    baselineRss: context.baselineRss,
    peakRss: rss.peakRss,
    rssMethod: rss.method,
    device: await budgetedBackend.device(),
    streaming,
    ...(spans ? { spans } : {}),
  };
}
