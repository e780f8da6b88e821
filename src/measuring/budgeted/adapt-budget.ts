import type { Backend, PreparedNetwork, StreamingRequest } from '../../backends/backend.ts';
import type { AdaptedPhaseResult as AdaptedPhase } from '../../backends/execution-report.ts';
import { budgetedRun } from '../../backends/budgeted/budget-share.ts';
import type { Graph } from '../../graph/ir.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import { findPlanner } from '../../planners/registry.ts';
import { readRss, resetPeakRss, settledRss } from '../process-memory.ts';

/**
 * FlexNN's adaptation (its section 4): the budget changes while the network keeps running,
 * and the runtime re-slices the network for the new budget, plans it again and carries on in
 * a buffer of the new size. One phase per new budget, in the measured process, after the
 * job's first phase: the running network let go of (its buffer freed and collected), the
 * peak started anew, the records sliced for the new budget, planned by the job's planner and
 * verified, the network prepared in its new buffer (weights from that slicing's file, written
 * by the harness beforehand as FlexNN's offline stage writes its transformed weights), then
 * the phase's inferences. Everything from the change to the prepared network is the
 * adaptation (`adaptMs`), planning included: FlexNN plans online when the budget changes;
 * only the wait for the freed pages to leave the process (the measurement's) is not.
 */
export interface BudgetPhase {
  /** The whole run's budget in this phase (bytes). */
  readonly budget: number;
  /** The weights file of the slicing this budget makes (budgeted/weights-file.ts). */
  readonly weightsFile: string;
  /** The buffer this budget leaves (bytes): what the harness planned, checked again here. */
  readonly bufferBytes: number;
}

export interface AdaptContext {
  readonly graph: Graph;
  readonly records: RecordOptions;
  readonly planner: string;
  readonly alignment: number;
  readonly streaming: StreamingRequest;
  readonly repetitions: number;
  readonly inputs: Map<string, Float32Array>;
  readonly collect: () => void;
  /** The inference loop's turn between inferences (collects and yields). */
  readonly between: () => Promise<void>;
}

/**
 * Runs the phases after the first; `running` holds the first phase's network, let go of at
 * the first change (the holder's reference is the only one: see letGo). Resolves with each
 * phase measured; the last phase's network is disposed.
 */
export async function adaptBudgets(backend: Backend, running: { prepared: PreparedNetwork | undefined }, phases: readonly BudgetPhase[], context: AdaptContext): Promise<AdaptedPhase[]> {
  const planner = findPlanner(context.planner);
  const measured: AdaptedPhase[] = [];
  for (const phase of phases) {
    const started = performance.now();
    letGo(running);
    // The old buffer goes back before the new one is made: a real runtime frees it, and a
    // collected WebAssembly memory is the only way to free one here.
    context.collect();
    const released = performance.now() - started;
    // V8 hands freed pages back from a background thread a moment later: the phase's peak
    // starts once they are gone, and that wait (the measurement's, not the adaptation's) is
    // left out of adaptMs.
    await settledRss(context.collect);
    resetPeakRss();
    const replanned = performance.now();
    const { network, share } = budgetedRun(context.graph, phase.budget, context.records);
    if (share.buffer !== phase.bufferBytes) throw new Error(`the budget of ${phase.budget} bytes leaves ${share.buffer} bytes here, but the harness planned ${phase.bufferBytes}.`);
    const plan = planAndVerify(planner, network.problem, { alignment: context.alignment });
    if (!plan.valid) throw new Error(`${planner.id} made a plan the verifier rejects at ${phase.budget} bytes: ${plan.violations[0]?.message}`);
    running.prepared = await backend.prepare({ graph: network.graph, problem: network.problem, plan, streaming: { ...context.streaming, weightsFile: phase.weightsFile, bufferBytes: share.buffer } });
    const adaptMs = released + (performance.now() - replanned);
    const samples: number[] = [];
    let outputs = new Map<string, Float32Array>();
    for (let k = 0; k < Math.max(1, context.repetitions); k++) {
      const begun = performance.now();
      outputs = await (running.prepared as PreparedNetwork).infer(context.inputs);
      samples.push(performance.now() - begun);
      await context.between();
    }
    const streaming = running.prepared.streamingStats?.();
    measured.push({
      budget: phase.budget,
      adaptMs,
      planMs: plan.timeMs,
      footprint: plan.footprint,
      samples,
      // The network's own output arrays are reused by the next inference: keep a copy.
      outputs: new Map([...outputs].map(([name, values]) => [name, values.slice()])),
      peakRss: readRss().peakRss,
      ...(streaming ? { streaming } : {}),
    });
  }
  letGo(running);
  return measured;
}

/** Disposes the running network and drops the one reference to it (in a function of its own, so that no local of the loop keeps its buffer alive). */
function letGo(running: { prepared: PreparedNetwork | undefined }): void {
  running.prepared?.dispose();
  running.prepared = undefined;
}
