import { executeBudgeted, type BudgetedReport } from '../measuring/budgeted/execute-budgeted.ts';
import { LOADINGS, type Loading } from '../backends/budgeted/load-schedule.ts';
import type { MemoryReport } from '../backends/execution-report.ts';
import type { Graph } from '../graph/ir.ts';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { InfeasibleBudgetError } from '../planners/budgeted/infeasible-budget.ts';
import type { Planner } from '../planners/planner.ts';
import type { StorageBandwidth } from '../io/storage-bandwidth.ts';
import { UsageError } from './errors.ts';
import { alignedTable, mib } from './format.ts';

export interface BudgetedExecArgs {
  readonly source: string;
  readonly planner: Planner;
  readonly budget: number | undefined;
  readonly loading: string;
  readonly repetitions: number;
  readonly warmup: number;
  readonly seed: number;
  readonly weights: 'seeded' | 'file';
  readonly records: RecordOptions;
  readonly alignment: number;
  readonly json: boolean;
  /** Also time one more inference's steps and loads (the report's timeline, for --trace). */
  readonly timeline?: boolean;
  readonly directIo: boolean;
  readonly storageBandwidth?: StorageBandwidth;
  readonly adapt?: readonly number[];
  readonly weightsDir?: string;
}

/**
 * `memplan exec --budget 50MiB` (or `--backend budgeted`): the streaming executor
 * (backends/budgeted/), its report as JSON or as lines. A budget the planner cannot meet is
 * one sentence naming the layer and the smallest budget that works.
 */
export async function execBudgeted(graph: Graph, args: BudgetedExecArgs): Promise<BudgetedReport> {
  if (!LOADINGS.includes(args.loading as Loading)) throw new UsageError(`--loading must be one of ${LOADINGS.join(', ')}, got "${args.loading}".`);
  if (args.alignment < 16) throw new UsageError(`--align must be at least 16 bytes with a budget (the SIMD kernels' vectors), got ${args.alignment}.`);
  let report: BudgetedReport;
  try {
    report = await executeBudgeted(graph, {
      planner: args.planner,
      ...(args.budget === undefined ? {} : { budget: args.budget }),
      loading: args.loading as Loading,
      repetitions: args.repetitions,
      warmup: args.warmup,
      seed: args.seed,
      weights: args.weights,
      records: args.records,
      alignment: args.alignment,
      ...(args.timeline ? { timeline: true } : {}),
      directIo: args.directIo,
      ...(args.storageBandwidth === undefined ? {} : { storageBandwidth: args.storageBandwidth }),
      ...(args.adapt === undefined ? {} : { adapt: args.adapt }),
      ...(args.weightsDir === undefined ? {} : { weightsDir: args.weightsDir }),
    });
  } catch (error) {
    // The executor names the layer, what the budget left for the buffer and the smallest budget that works.
    if (!(error instanceof InfeasibleBudgetError) || args.budget === undefined) throw error;
    throw new InfeasibleBudgetError(`${args.source}: ${error.message}`, error.step, error.records, error.budget, error.smallestBudget);
  }
  if (args.json) {
    const { timeline: _timeline, ...printed } = report;
    process.stdout.write(`${JSON.stringify(printed)}\n`);
    return report;
  }
  const l = report.latencyMs;
  const lines = [
    `backend     budgeted (${String(report.device.cpu ?? 'cpu')}; ${String(report.device.loader ?? 'loader thread')})`,
    `planner     ${report.planner}: ${report.share === null ? 'no budget' : `budget ${mib(report.share.budget)} MiB = buffer ${mib(report.share.memory)} + graph I/O ${mib(report.share.io)} + reserve ${mib(report.share.reserve)} (+ ${mib(report.share.budget - report.share.memory - report.share.io - report.share.reserve)} under a page)`}, ${mib(report.footprint)} MiB used by the plan; ${report.preloaded} weight records preloaded`,
    `loading     ${report.loading}: ${mib(report.bytesLoaded)} MiB in ${report.loads} reads per inference; compute waited ${report.ioStallMs.toFixed(2)} ms per inference (mean)`,
    `reads       ${readsLine(report.reads, args.directIo)}`,
    `latency     mean ${report.meanLatencyMs.toFixed(2)} ms, median ${l.median.toFixed(2)}, min ${l.min.toFixed(2)}, p90 ${l.p90.toFixed(2)} over ${l.runs} runs`,
    `outputs     ${report.matchesUnbudgeted === null ? 'not checked' : report.matchesUnbudgeted ? 'bit-identical to the unbudgeted run (every weight resident)' : 'DIFFER from the unbudgeted run'}`,
    ...memoryLines(report.memory),
    ...(report.withinBudget === null
      ? []
      : [
          `budget      ${report.withinBudget ? 'kept' : 'NOT KEPT'}: peak - base ${mib(report.memory.peakRssDelta)} MiB ${report.withinBudget ? 'within' : 'over'} the budget of ${mib(report.budget as number)} MiB`,
        ]),
    ...(report.adaptations ?? []).map(
      (phase) =>
        `adapt       to ${mib(phase.budget)} MiB in ${phase.adaptMs.toFixed(1)} ms (planning ${phase.planMs.toFixed(1)}); mean ${phase.meanLatencyMs.toFixed(2)} ms; peak - base ${mib(phase.peakRssDelta)} MiB, budget ${phase.withinBudget ? 'kept' : 'NOT KEPT'}; outputs ${phase.matchesUnbudgeted === null ? 'not checked' : phase.matchesUnbudgeted ? 'bit-identical' : 'DIFFER'}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return report;
}

/** How the weights were read, in words: what a reader needs to weigh the latency. */
export function readsLine(reads: BudgetedReport['reads'], asked: boolean): string {
  const path = reads.direct ? 'O_DIRECT (the storage, not the page cache)' : asked ? 'through the page cache (this file system takes no O_DIRECT)' : 'through the page cache (--no-direct-io)';
  return `${path}; ${reads.bytesPerSecond === null ? "at the device's own speed" : `held to ${(reads.bytesPerSecond / 1e6).toFixed(reads.bytesPerSecond < 1e7 ? 2 : 0)} MB/s (--storage-bandwidth)`}`;
}

function memoryLines(memory: MemoryReport): string[] {
  const rows: [string, number, string][] = [
    ['planned', memory.planned, "the plan's footprint"],
    ['buffer', memory.intermediates, "the one buffer's memory: the plan's buffer + 64 B, in 64 KiB pages"],
    ['io', memory.io, 'inputs given and outputs handed back'],
    ['scratch', memory.scratch, 'kernel scratch outside the buffer, high-water'],
    ['runtime', memory.runtime ?? 0, 'before the first baseline: the loader thread, a warm-up network run'],
    ...(memory.job === undefined ? [] : [['job', memory.job, 'left by the job and its dry run, before the baseline was taken again'] as [string, number, string]]),
    ['baseline RSS', memory.baselineRss, 'after start-up and the dry run, before the network'],
    ['peak RSS', memory.peakRss, 'through preparation and inference'],
    ['peak - base', memory.peakRssDelta, 'what running this plan took'],
    ['rest', memory.rest, 'peak - base not accounted for above'],
  ];
  const table = alignedTable(
    ['figure', 'MiB', 'what'],
    rows.map(([name, bytes, what]) => [name, mib(bytes), what]),
  );
  return ['', `memory      measured in an isolated process that ran this plan alone (peak: ${memory.method.replace(/; measured in an isolated process.*$/, '')})`, ...table.split('\n')];
}
