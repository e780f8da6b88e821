import { budgetedNetwork, type BudgetedNetwork } from '../../graph/budget-records.ts';
import type { Graph } from '../../graph/ir.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import { InfeasibleBudgetError, overBudget, unplaced } from '../../planners/budgeted/infeasible-budget.ts';
import { planOf } from '../../planners/plan-handover.ts';
import { planAndVerify, type VerifiedResult } from '../../planners/plan-and-verify.ts';
import type { Planner } from '../../planners/planner.ts';
import type { DeviceInfo, StreamingStats } from '../../backends/backend.ts';
import { cpuBackend } from '../../backends/cpu/cpu-backend.ts';
import type { RunSettings } from '../execute-options.ts';
import { memoryReport, type MemoryReport, type Timeline } from '../../backends/execution-report.ts';
import { naiveReference } from '../isolation/execute-isolated.ts';
import { measureIsolated } from '../isolation/isolated.ts';
import { summarizeLatency, type LatencySummary } from '../../backends/latency.ts';
import { bitIdentical, weightedGraph } from '../../backends/run-data.ts';
import { budgetedBackend } from '../../backends/budgeted/budgeted-backend.ts';
import { budgetedRun, smallestRunBudget, type BudgetShare } from '../../backends/budgeted/budget-share.ts';
import type { Loading } from '../../backends/budgeted/load-schedule.ts';
import { WeightsFile } from '../../backends/budgeted/weights-file.ts';
import type { StorageBandwidth } from '../../io/storage-bandwidth.ts';

export interface BudgetedExecuteOptions extends RunSettings {
  readonly planner: Planner;
  /**
   * Bytes the whole run may take above its process's baseline: the buffer, graph I/O and the
   * runtime's reserve (budget-share.ts); absent: the buffer is the plan's own footprint,
   * weights unsliced (the on-demand baseline).
   */
  readonly budget?: number;
  readonly loading: Loading;
  /** Bytes; at least 16 (the SIMD kernels' vectors). Default 64. */
  readonly alignment?: number;
  /** Compare outputs with an unbudgeted run: every weight resident, the CPU backend (default true). */
  readonly verifyByExecution?: boolean;
  /** Those outputs, when already at hand (a study runs them once per network). */
  readonly reference?: ReadonlyMap<string, Float32Array>;
  /** Record the order of loads and computes (StreamingStats.trace). */
  readonly trace?: boolean;
  /** Also time every step and load of one more inference (the report's `timeline`: memplan exec --trace). */
  readonly timeline?: boolean;
  /** Read the weights past the page cache (O_DIRECT) where the file system takes it (default true): the storage, not memory. */
  readonly directIo?: boolean;
  /** Hold the reads to a stated storage speed (io/storage-bandwidth.ts); absent: the device's own. */
  readonly storageBandwidth?: StorageBandwidth;
  /** The folder the weights files are written under (default: the system's temporary folder): the storage the reads measure. */
  readonly weightsDir?: string;
  /** Budgets (bytes) the run changes to after its first phase, in order (FlexNN's adaptation; needs `budget`). */
  readonly adapt?: readonly number[];
}

/** One later budget of an adapting run, as measured (exec --budget B --adapt B1,B2,...). */
export interface Adaptation {
  readonly budget: number;
  /** From the budget's change to the network ready in its new buffer: let go, re-slice, plan, verify, prepare. */
  readonly adaptMs: number;
  /** The planner's own time within it. */
  readonly planMs: number;
  readonly footprint: number;
  readonly meanLatencyMs: number;
  readonly latencyMs: LatencySummary;
  /** The phase's own peak over the run's baseline: from the change through its last inference. */
  readonly peakRssDelta: number;
  /** That peak at or under this phase's budget. */
  readonly withinBudget: boolean;
  readonly matchesUnbudgeted: boolean | null;
  readonly ioStallMs: number;
}

/** The JSON of `memplan exec --budget`. */
export interface BudgetedReport {
  readonly backend: 'budgeted';
  readonly planner: string;
  readonly loading: Loading;
  /** The budget asked for (bytes); null when none (the buffer is the plan's footprint). */
  readonly budget: number | null;
  /** How the budget is spent: graph I/O and the reserve outside the buffer, the buffer the plan has; null without a budget. */
  readonly share: BudgetShare | null;
  /**
   * The budget kept, as measured: the process's peak over its baseline (memory.peakRssDelta)
   * at or under the budget; null without a budget.
   */
  readonly withinBudget: boolean | null;
  /** The plan's footprint: the highest byte it uses in the buffer. */
  readonly footprint: number;
  readonly latencyMs: LatencySummary;
  /** Every timed inference (ms), in the order they ran. */
  readonly samplesMs: readonly number[];
  /** Mean of the timed inferences (FlexNN reports means). */
  readonly meanLatencyMs: number;
  /** Mean per timed inference: milliseconds the compute thread waited for weights. */
  readonly ioStallMs: number;
  /** Bytes read from the weights file per inference, in `loads` reads. */
  readonly bytesLoaded: number;
  readonly loads: number;
  /** How the weights were read: past the page cache (O_DIRECT) or through it, and the speed the reads were held to (null: the device's own). */
  readonly reads: StreamingStats['reads'];
  /** Mean bytes per second the reads were served at in the latest inference (bytesLoaded over the loader's time on them); null without reads. */
  readonly readBytesPerSecond: number | null;
  /** Milliseconds to slice the network for the budget and plan it (the verifier's check not included): FlexNN's offline planning. */
  readonly planningMs: number;
  /** Weight records the plan loads ahead of their layer. */
  readonly preloaded: number;
  /** Outputs bit-identical to the unbudgeted run's (every weight resident); null when not checked. */
  readonly matchesUnbudgeted: boolean | null;
  /** intermediates: the one buffer's memory as allocated (the plan's buffer and the kernels' 64 bytes, in 64 KiB pages). */
  readonly memory: MemoryReport;
  readonly peakRssBytes: number;
  readonly device: DeviceInfo;
  readonly trace?: StreamingStats['trace'];
  /** With `adapt`: each later budget's phase, measured on its own. */
  readonly adaptations?: readonly Adaptation[];
  /** With the `timeline` option: the compute thread's steps and the loader's reads of one inference (not part of exec's JSON). */
  readonly timeline?: Timeline;
}

/**
 * Runs a network under a memory budget: the budgeted records of the source (weights
 * sliced for the buffer the budget leaves), planned and verified here; the weights written
 * once, in the form the kernels read, to a temporary weights file (removed afterwards); the
 * plan run as an isolated job's budgeted variant (isolation/measure-job.ts: a fresh measured
 * process of its own that streams them);
 * and the outputs compared with an unbudgeted run of the same network, seed and input. A
 * budget the planner cannot meet is an InfeasibleBudgetError that names the smallest budget
 * that works.
 */
export async function executeBudgeted(source: Graph, options: BudgetedExecuteOptions): Promise<BudgetedReport> {
  const weightsKind = options.weights ?? 'seeded';
  const weighted = weightedGraph(source, weightsKind, options.seed);
  const records = options.records ?? {};
  const alignment = Math.max(16, options.alignment ?? 64);
  const slicingStart = performance.now();
  const { network, share } = options.budget === undefined ? { network: budgetedNetwork(weighted, records), share: null } : budgetedRun(weighted, options.budget, records);
  const slicingMs = performance.now() - slicingStart;
  const plan = planWithin(source, network, share, options.planner, records, alignment);
  const bufferBytes = share?.buffer ?? plan.footprint;
  if (options.adapt !== undefined && options.budget === undefined) throw new Error('adapting budgets needs a first budget.');
  const file = new WeightsFile(network, network.graph, options.weightsDir);
  const phaseFiles: WeightsFile[] = [];
  try {
    // Each later budget: sliced and planned here first, so that a budget the planner cannot
    // meet is refused before anything runs, and its weights written in its slicing (FlexNN's
    // offline stage); the measured process slices and plans again when the budget changes.
    const phases = (options.adapt ?? []).map((budget) => {
      const later = budgetedRun(weighted, budget, records);
      planWithin(source, later.network, later.share, options.planner, records, alignment);
      const phaseFile = new WeightsFile(later.network, later.network.graph, options.weightsDir);
      phaseFiles.push(phaseFile);
      return { budget, weightsFile: phaseFile.path, bufferBytes: later.share.buffer };
    });
    // The isolated job's budgeted variant: the measured process slices the records again
    // for the budget, verifies the plan in the buffer, and streams the weights from the file.
    const job = {
      records,
      ...(options.budget === undefined ? {} : { budget: options.budget }),
      planner: plan.planner,
      plan: planOf(plan),
      alignment,
      backend: budgetedBackend.kind,
      streaming: {
        weightsFile: file.path,
        loading: options.loading,
        bufferBytes,
        reads: { direct: options.directIo ?? true, ...(options.storageBandwidth ? { bytesPerSecond: options.storageBandwidth.bytesPerSecond } : {}) },
        ...(options.trace ? { trace: true } : {}),
      },
      warmup: options.warmup,
      repetitions: options.repetitions,
      seed: options.seed,
      ...(options.timeline ? { timeline: true } : {}),
      ...(phases.length > 0 ? { adapt: phases } : {}),
    };
    const measured = await measureIsolated(source, { values: 'streamed' }, job);
    if (measured.streaming === undefined) throw new Error('the budgeted measured process reported no streaming figures.');
    const reference =
      options.reference ?? ((options.verifyByExecution ?? true) ? await naiveReference(source, { backend: cpuBackend, seed: options.seed, weights: weightsKind, records, alignment }) : undefined);
    const matchesUnbudgeted = reference === undefined ? null : bitIdentical(measured.outputs, reference);
    const streaming = measured.streaming;
    const timed = streaming.ioStallMs.slice(streaming.ioStallMs.length - measured.samples.length);
    const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
    const memory = memoryReport(plan.footprint, measured);
    return {
      backend: 'budgeted',
      planner: plan.planner,
      loading: options.loading,
      budget: options.budget ?? null,
      share,
      withinBudget: options.budget === undefined ? null : memory.peakRssDelta <= options.budget,
      footprint: plan.footprint,
      latencyMs: summarizeLatency(measured.samples, options.seed),
      samplesMs: measured.samples.map(round),
      meanLatencyMs: round(mean(measured.samples)),
      ioStallMs: round(mean(timed)),
      bytesLoaded: streaming.bytesLoaded,
      loads: streaming.loads,
      reads: streaming.reads,
      readBytesPerSecond: streaming.readMs > 0 ? Math.round((streaming.bytesLoaded * 1000) / streaming.readMs) : null,
      planningMs: round(slicingMs + plan.timeMs),
      preloaded: network.problem.records.filter((r, i) => r.kind === 'weight' && (plan.loadSteps?.[i] ?? r.first) < r.first).length,
      matchesUnbudgeted,
      memory,
      peakRssBytes: memory.peakRss,
      device: measured.device,
      ...(measured.adaptations
        ? {
            adaptations: measured.adaptations.map((phase): Adaptation => {
              const peakRssDelta = phase.peakRss - measured.baselineRss;
              const stalls = phase.streaming?.ioStallMs.slice(-phase.samples.length) ?? [];
              return {
                budget: phase.budget,
                adaptMs: round(phase.adaptMs),
                planMs: round(phase.planMs),
                footprint: phase.footprint,
                meanLatencyMs: round(mean(phase.samples)),
                latencyMs: summarizeLatency(phase.samples, options.seed),
                peakRssDelta,
                withinBudget: peakRssDelta <= phase.budget,
                matchesUnbudgeted: reference === undefined ? null : bitIdentical(phase.outputs, reference),
                ioStallMs: round(mean(stalls)),
              };
            }),
          }
        : {}),
      ...(streaming.trace ? { trace: streaming.trace } : {}),
      ...(measured.spans ? { timeline: { spans: measured.spans, problem: network.problem } } : {}),
    };
  } finally {
    file.dispose();
    for (const phaseFile of phaseFiles) phaseFile.dispose();
  }
}

/**
 * The verified plan of the network in its buffer (the problem carries the buffer as its
 * budget). A planner that cannot meet it (FlexNN's), or a plan over it (a planner that
 * knows no budget), is an InfeasibleBudgetError in the budget's terms: the buffer the budget
 * left, and the smallest budget of the whole run that works (bisection over the run's records).
 */
function planWithin(source: Graph, network: BudgetedNetwork, share: BudgetShare | null, planner: Planner, records: RecordOptions, alignment: number): VerifiedResult {
  let plan: VerifiedResult;
  try {
    // Within a run's budget the error names the run's smallest budget (runOverBudget), not the buffer's.
    plan = planAndVerify(planner, network.problem, { alignment, findSmallestBudget: share === null });
  } catch (error) {
    if (!(error instanceof InfeasibleBudgetError) || share === null) throw error;
    throw runOverBudget(planner, `cannot fit operator ${error.step} (${unplaced(error.records)})`, share, error, source, records, alignment);
  }
  if (plan.valid) return plan;
  if (share !== null && plan.violations.some((v) => v.kind === 'budget'))
    throw runOverBudget(planner, `needs ${plan.footprint} bytes, more than the buffer of ${share.buffer} bytes`, share, { step: -1, records: [] }, source, records, alignment);
  throw new Error(`${planner.id} produced an invalid plan: ${plan.violations[0]?.message}`);
}

function runOverBudget(
  planner: Planner,
  what: string,
  share: BudgetShare,
  failed: { step: number; records: readonly string[] },
  source: Graph,
  records: RecordOptions,
  alignment: number,
): InfeasibleBudgetError {
  return overBudget({ subject: planner.id, what, budget: share.budget, left: share, smallest: smallestRunBudget(planner, source, records, alignment), step: failed.step, records: failed.records });
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
