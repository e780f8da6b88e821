import { cpuBackend } from '../../backends/cpu/cpu-backend.ts';
import { executeBudgeted, type BudgetedReport } from '../../measuring/budgeted/execute-budgeted.ts';
import type { Loading } from '../../backends/budgeted/load-schedule.ts';
import { smallestRunBudget } from '../../backends/budgeted/budget-share.ts';
import { parseStorageBandwidth } from '../../io/storage-bandwidth.ts';
import { naiveReference } from '../../measuring/isolation/execute-isolated.ts';
import { executionRecords } from '../../backends/execution-records.ts';
import { memoryReport, type MemoryReport } from '../../backends/execution-report.ts';
import { measureIsolated } from '../../measuring/isolation/isolated.ts';
import { bitIdentical, weightedGraph } from '../../backends/run-data.ts';
import type { Graph } from '../../graph/ir.ts';
import { plannedProblem } from '../../graph/lifetimes.ts';
import { loadSource } from '../../io/source.ts';
import { InfeasibleBudgetError } from '../../planners/budgeted/infeasible-budget.ts';
import { planOf } from '../../planners/plan-handover.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import { findPlanner } from '../../planners/registry.ts';
import { ExperimentError } from '../experiment-error.ts';
import { Progress } from '../progress.ts';
import type { ResultStore } from '../result-store.ts';
import { registerStudy, type Study } from '../study.ts';
import { parseFlexnnBudget, type AdaptiveRun, type BudgetNetwork, type FlexnnBudgetConfig, type StorageSpeed } from './flexnn-budget-config.ts';

/**
 * The methods FlexNN's evaluation compares (its section 5), as this project runs them:
 * - default: every weight resident, activations planned (Greedy by Size), the CPU backend:
 *   today's `memplan exec` (NCNN's default);
 * - on-demand: each layer's weights loaded just before it runs and freed after, nothing
 *   overlapped, weights unsliced, memory laid out by Greedy by Size (NCNN on demand);
 * - flexnn: sliced for the budget, planned by Algorithm 1 (budgeted/flexnn), weights
 *   preloaded by the loader thread as the plan allows;
 * - flexnn-no-preload (ablation): the same slicing, every weight planned at its own layer
 *   and loaded on demand (FlexNN's "w/o preload": its plan, on-demand loading);
 * - flexnn-no-planning (ablation): the same slicing and overlapped loader, memory laid out
 *   by a planner that knows nothing of budgets or preloading (Greedy by Size, every record
 *   over [first, last]): loads overlap compute only where its layout leaves room;
 * - flexnn-adaptive: FlexNN whose budget changes while it runs (its adaptation), each new
 *   budget a phase re-sliced and re-planned in the running process (adapt-budget.ts).
 */
export const METHODS = ['default', 'on-demand', 'flexnn', 'flexnn-no-preload', 'flexnn-no-planning', 'flexnn-adaptive'] as const;
export type Method = (typeof METHODS)[number];

const STREAMED: Readonly<Record<Exclude<Method, 'default'>, { readonly planner: string; readonly loading: Loading }>> = {
  'on-demand': { planner: 'offsets/greedy-by-size', loading: 'on-demand' },
  flexnn: { planner: 'budgeted/flexnn', loading: 'overlapped' },
  'flexnn-no-preload': { planner: 'budgeted/flexnn-no-preload', loading: 'on-demand' },
  'flexnn-no-planning': { planner: 'offsets/greedy-by-size', loading: 'overlapped' },
  'flexnn-adaptive': { planner: 'budgeted/flexnn', loading: 'overlapped' },
};

/** One finished cell: a method on a network (at a budget, for the FlexNN methods; from a storage, for the streamed ones). */
export interface BudgetCell {
  readonly network: string;
  readonly source: string;
  readonly method: Method;
  /** budgets: a budget of the network's sweep; ablation: a budget of the ablation; baseline: default and on-demand (no budget); adaptive: a run whose budget changes (its first budget here). */
  readonly part: 'baseline' | 'budgets' | 'ablation' | 'adaptive';
  /** adaptive: each later budget's phase, measured on its own. */
  readonly adaptations?: BudgetedReport['adaptations'];
  /** Bytes; null for the baselines. */
  readonly budget: number | null;
  /** The sweep's first budget: the smallest at which FlexNN's planner fits the whole run (found by the study). */
  readonly minimum?: true;
  /** Streamed methods: the label of the storage the weights were read from (config.storage). */
  readonly storage?: string;
  /** Streamed methods: how the reads went (O_DIRECT or the page cache; the speed held to, bytes per second) and the speed they were served at. */
  readonly reads?: BudgetedReport['reads'];
  readonly readBytesPerSecond?: number | null;
  /** Streamed methods: milliseconds to slice the network for the budget and plan it (FlexNN's offline planning). */
  readonly planningMs?: number;
  /** Every timed inference (ms): intervals are computed from them. */
  readonly samplesMs?: readonly number[];
  readonly planner: string;
  readonly feasible: boolean;
  /** Infeasible: why, and the smallest budget at which the method's planner fits this network (bytes). */
  readonly reason?: string;
  readonly smallestBudget?: number | null;
  /** Feasible: the plan's footprint (bytes; default: the activations' arena). */
  readonly footprint?: number;
  /** FlexNN methods: the buffer the budget leaves the plan beside graph I/O and the runtime's reserve (bytes). */
  readonly buffer?: number;
  /** FlexNN methods: the budget kept as measured (peak over baseline at or under it). */
  readonly withinBudget?: boolean;
  /** Mean and median of the timed inferences (ms). */
  readonly meanLatencyMs?: number;
  readonly medianLatencyMs?: number;
  readonly ioStallMs?: number;
  readonly bytesLoaded?: number;
  readonly preloaded?: number;
  readonly memory?: MemoryReport;
  readonly matchesUnbudgeted?: boolean;
}

interface Job {
  readonly network: BudgetNetwork;
  readonly method: Method;
  readonly part: BudgetCell['part'];
  /** MiB; null for the baselines; 'minimum': the network's smallest feasible budget, found when it runs. */
  readonly budgetMiB: number | null | 'minimum';
  /** Streamed methods: where the weights are read from. */
  readonly storage?: StorageSpeed;
  /** adaptive: the budgets (MiB) the run changes to after its first. */
  readonly adapt?: readonly number[];
}

/**
 * Every cell of a run, network by network: the default (every weight resident, no storage
 * read), then for each storage the on-demand baseline, the budgets (from the network's
 * smallest, with `fromMinimum`) and the ablation.
 */
export function plannedJobs(networks: readonly BudgetNetwork[], ablation: FlexnnBudgetConfig['ablation'], sweep: Pick<FlexnnBudgetConfig, 'fromMinimum' | 'storage'>, adaptive?: AdaptiveRun): Job[] {
  return networks.flatMap((network) => {
    const jobs: Job[] = [{ network, method: 'default', part: 'baseline', budgetMiB: null }];
    for (const storage of sweep.storage) {
      if (storage.networks !== undefined && !storage.networks.includes(network.label)) continue;
      jobs.push(
        { network, method: 'on-demand', part: 'baseline', budgetMiB: null, storage },
        ...(sweep.fromMinimum ? [{ network, method: 'flexnn', part: 'budgets', budgetMiB: 'minimum', storage } as const] : []),
        ...network.budgetsMiB.map((budgetMiB): Job => ({ network, method: 'flexnn', part: 'budgets', budgetMiB, storage })),
      );
      if (ablation.networks.includes(network.label)) {
        for (const budgetMiB of ablation.budgetsMiB) {
          // FlexNN itself at an ablation budget is the sweep's cell when the sweep has it.
          if (!network.budgetsMiB.includes(budgetMiB)) jobs.push({ network, method: 'flexnn', part: 'ablation', budgetMiB, storage });
          jobs.push({ network, method: 'flexnn-no-preload', part: 'ablation', budgetMiB, storage }, { network, method: 'flexnn-no-planning', part: 'ablation', budgetMiB, storage });
        }
      }
      if (adaptive?.networks.includes(network.label))
        jobs.push({ network, method: 'flexnn-adaptive', part: 'adaptive', budgetMiB: adaptive.budgetsMiB[0], storage, adapt: adaptive.budgetsMiB.slice(1) });
    }
    return jobs;
  });
}

interface Run {
  readonly config: FlexnnBudgetConfig;
  readonly repetitions: number;
  readonly warmup: number;
}

/**
 * FlexNN's evaluation on this machine: every network under the default and on-demand
 * baselines and FlexNN at each budget (infeasible budgets recorded as such, with the
 * smallest budget that works), and the ablation; every cell one measured execution in a
 * process of its own, its outputs checked bit for bit against the network's unbudgeted run
 * (every weight resident), which runs once per network.
 */
async function runStudy(config: FlexnnBudgetConfig, store: ResultStore, options: { quick?: boolean; quiet?: boolean }): Promise<BudgetCell[]> {
  const quick = options.quick === true;
  const networks = quick ? config.quick.networks : config.networks;
  const run: Run = { config, repetitions: quick ? config.quick.repetitions : config.repetitions, warmup: quick ? config.quick.warmup : config.warmup };
  const jobs = plannedJobs(networks, quick ? config.quick.ablation : config.ablation, config, quick ? config.quick.adaptive : config.adaptive);
  const progress = new Progress(jobs.length, config.name, process.stderr, options.quiet === true);
  progress.start(store.dir);
  const cells: BudgetCell[] = [];
  let current: { label: string; graph: Graph; reference: Map<string, Float32Array>; minimum: number | undefined } | undefined;
  for (const job of jobs) {
    if (current?.label !== job.network.label) {
      const loaded = await loadSource(job.network.source);
      if (loaded.kind !== 'graph') throw new ExperimentError(`${job.network.source} holds usage records, not a network; the flexnn-budget study runs networks.`);
      const reference = await naiveReference(loaded.graph, { backend: cpuBackend, seed: config.seed, records: {}, alignment: config.alignment });
      const minimum = config.fromMinimum ? smallestRunBudget(findPlanner(STREAMED.flexnn.planner), loaded.graph, {}, config.alignment) : undefined;
      current = { label: job.network.label, graph: loaded.graph, reference, minimum };
    }
    if (job.budgetMiB === 'minimum' && current.minimum === undefined) throw new ExperimentError(`${job.network.label}: FlexNN's planner fits no budget the executor can hold.`);
    const cell = await runJob(job, current.graph, current.reference, run, current.minimum);
    await store.append(cell);
    cells.push(cell);
    const budget = cell.budget === null ? '' : ` ${(cell.budget / 2 ** 20).toFixed(2)} MiB${cell.minimum ? ' (smallest)' : ''}`;
    const from = job.storage === undefined || config.storage.length === 1 ? '' : ` [${job.storage.label}]`;
    const what = cell.feasible
      ? `${cell.meanLatencyMs?.toFixed(1)} ms, peak +${((cell.memory?.peakRssDelta ?? 0) / 2 ** 20).toFixed(1)} MiB${cell.withinBudget === false ? ', OVER BUDGET' : ''}${cell.matchesUnbudgeted === false ? ', OUTPUTS DIFFER' : ''}`
      : 'infeasible';
    progress.step(`${job.network.label} ${job.method}${budget}${from}: ${what}`);
  }
  return cells;
}

async function runJob(job: Job, graph: Graph, reference: Map<string, Float32Array>, run: Run, minimum: number | undefined): Promise<BudgetCell> {
  const { config } = run;
  const budget = job.budgetMiB === null ? null : job.budgetMiB === 'minimum' ? (minimum as number) : Math.round(job.budgetMiB * 2 ** 20);
  const base = {
    network: job.network.label,
    source: job.network.source,
    method: job.method,
    part: job.part,
    budget,
    ...(job.budgetMiB === 'minimum' ? { minimum: true as const } : {}),
    ...(job.storage === undefined ? {} : { storage: job.storage.label }),
  };
  if (job.method === 'default') return { ...base, planner: 'offsets/greedy-by-size', feasible: true, ...(await runDefault(graph, reference, run, job.network)) };
  const method = STREAMED[job.method];
  const planner = findPlanner(method.planner);
  const bandwidth = job.storage?.bandwidth === undefined ? undefined : parseStorageBandwidth(job.storage.bandwidth);
  try {
    const report = await executeBudgeted(graph, {
      planner,
      ...(base.budget === null ? {} : { budget: base.budget }),
      loading: method.loading,
      repetitions: job.network.repetitions ?? run.repetitions,
      warmup: job.network.warmup ?? run.warmup,
      seed: config.seed,
      alignment: config.alignment,
      reference,
      directIo: true,
      ...(bandwidth === undefined ? {} : { storageBandwidth: bandwidth }),
      ...(job.adapt === undefined ? {} : { adapt: job.adapt.map((b) => Math.round(b * 2 ** 20)) }),
    });
    return { ...base, planner: planner.id, feasible: true, ...streamedFigures(report) };
  } catch (error) {
    if (!(error instanceof InfeasibleBudgetError)) throw error;
    // The executor names the smallest budget of the whole run that works for this method's planner on this network.
    return { ...base, planner: planner.id, feasible: false, reason: error.message, smallestBudget: error.smallestBudget ?? null };
  }
}

function streamedFigures(report: BudgetedReport): Partial<BudgetCell> {
  return {
    footprint: report.footprint,
    ...(report.share === null ? {} : { buffer: report.share.buffer }),
    ...(report.withinBudget === null ? {} : { withinBudget: report.withinBudget }),
    meanLatencyMs: report.meanLatencyMs,
    medianLatencyMs: report.latencyMs.median,
    samplesMs: report.samplesMs,
    ioStallMs: report.ioStallMs,
    reads: report.reads,
    readBytesPerSecond: report.readBytesPerSecond,
    planningMs: report.planningMs,
    ...(report.adaptations ? { adaptations: report.adaptations } : {}),
    bytesLoaded: report.bytesLoaded,
    preloaded: report.preloaded,
    memory: report.memory,
    ...(report.matchesUnbudgeted === null ? {} : { matchesUnbudgeted: report.matchesUnbudgeted }),
  };
}

/**
 * The default method: the network with every weight resident on the CPU backend, its
 * activations planned by Greedy by Size, measured in a process of its own (what
 * `memplan exec` does), the mean kept beside the median.
 */
async function runDefault(graph: Graph, reference: Map<string, Float32Array>, run: Run, network: BudgetNetwork): Promise<Partial<BudgetCell>> {
  const { seed, alignment } = run.config;
  const weighted = weightedGraph(graph, 'seeded', seed);
  const records = executionRecords(cpuBackend);
  const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), plannedProblem(weighted, records).problem, { alignment });
  const measured = await measureIsolated(
    weighted,
    { seeded: seed },
    { records, alignment, backend: cpuBackend.kind, seed, planner: plan.planner, plan: planOf(plan), warmup: network.warmup ?? run.warmup, repetitions: network.repetitions ?? run.repetitions },
  );
  const samples = [...measured.samples].sort((a, b) => a - b);
  const middle = samples.length / 2;
  return {
    footprint: plan.footprint,
    meanLatencyMs: samples.reduce((a, b) => a + b, 0) / samples.length,
    samplesMs: measured.samples,
    medianLatencyMs: samples.length % 2 === 1 ? samples[Math.floor(middle)] : (samples[middle - 1] + samples[middle]) / 2,
    memory: memoryReport(plan.footprint, measured),
    matchesUnbudgeted: bitIdentical(measured.outputs, reference),
  };
}

export const flexnnBudgetStudy: Study<FlexnnBudgetConfig, BudgetCell> = {
  kind: 'flexnn-budget',
  parse: parseFlexnnBudget,
  run: runStudy,
};

registerStudy(flexnnBudgetStudy);
