import type { Problem } from '../core/problem.ts';
import type { Graph } from '../graph/ir.ts';
import { plannedGraphOptions, plannedProblem } from '../graph/lifetimes.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';
import { runnablePlan } from '../planners/plan-handover.ts';
import type { ExecuteOptions } from './execute-options.ts';
import { weightedGraph } from '../backends/run-data.ts';
import { encodeJob, jobRecordOptions, wirePlan, type WireRunOptions } from '../agent/wire.ts';
import type { Backend } from '../backends/backend.ts';
import { executionRecords } from '../backends/execution-records.ts';

/** A job ready to send: the planned graph and records, the verified plan, and the body in the wire format. */
export interface BuiltJob {
  readonly graph: Graph;
  readonly problem: Problem;
  readonly verified: VerifiedResult;
  readonly alignment: number;
  readonly body: string;
}

/**
 * The job for a device that runs elsewhere (an agent, a browser page): the graph with the
 * weights it runs with, planned here with the alignment the device needs and verified, and
 * sent as the planned graph (transformed, in the order planned here) with record options that
 * do neither again, so that the device runs exactly the order the plan was made for, whatever
 * its own version of the scheduler would choose.
 */
export function buildJob(
  source: Graph,
  options: Pick<ExecuteOptions, 'planner' | 'weights' | 'seed' | 'records' | 'alignment'>,
  run: WireRunOptions,
  requiredAlignment: number,
  runs: Pick<Backend, 'plansScratch' | 'fusesActivations' | 'runsNhwc'>,
): BuiltJob {
  const weighted = weightedGraph(source, options.weights ?? 'seeded', options.seed);
  // The records the device's backend runs with (its scratch, its fused activations): the plan made here holds them.
  const { elementSize: _fp32, ...wanted } = executionRecords(runs, jobRecordOptions(options.records));
  const { graph, problem } = plannedProblem(weighted, { ...wanted, elementSize: 4 });
  const alignment = Math.max(requiredAlignment, options.alignment ?? 1);
  const verified = runnablePlan(options.planner, problem, alignment);
  const body = encodeJob({ graph, records: plannedGraphOptions(wanted), plan: wirePlan(verified, problem, alignment), run });
  return { graph, problem, verified, alignment, body };
}
