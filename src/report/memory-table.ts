import { stringify } from 'csv-stringify/sync';
import type { MemoryReport } from '../backends/execution-report.ts';
import type { CellResult } from '../experiments/result.ts';

const MIB = 2 ** 20;
/** MiB; a figure the backend could not measure (null in the results, a browser page's RSS) is said to be so. */
const mib = (bytes: number | null): string => (typeof bytes === 'number' && Number.isFinite(bytes) ? (bytes / MIB).toFixed(3) : 'n/a');

/** Cells that carry measured memory (an executing backend ran them). */
export function measuredCells(results: readonly CellResult[]): (CellResult & { memory: MemoryReport })[] {
  return results.filter((r): r is CellResult & { memory: MemoryReport } => r.memory !== undefined);
}

/**
 * How close a run's measured peak is to what it holds: peak − baseline may pass planned +
 * weights + io by this share plus this many bytes, and `rest` (what no figure names) may be
 * at most the larger of the two limits below. A native runtime meets them by construction;
 * an executor that stages, copies or grows memory of its own does not.
 */
export const ACCOUNTED = { share: 0.03, bytes: 2 * MIB } as const;

/** Whether a cell's measured peak is explained by what it holds (ACCOUNTED); undefined where no peak was measured. */
export function accounted(memory: MemoryReport): boolean | undefined {
  if (!Number.isFinite(memory.peakRssDelta) || !Number.isFinite(memory.rest)) return undefined;
  // What the run holds by name: the plan, the weights, graph I/O, and a worker pool's copies of the network's kernels.
  const held = memory.planned + memory.weights + memory.io;
  const peakWithin = memory.peakRssDelta <= held * (1 + ACCOUNTED.share) + ACCOUNTED.bytes;
  const restWithin = memory.rest <= Math.max(ACCOUNTED.bytes, ACCOUNTED.share * memory.peakRssDelta);
  return peakWithin && restWithin;
}

/**
 * Where memory goes, per network and planner (MiB): what the plan asks for, what the
 * backend allocated (intermediates, graph I/O, weights, kernel scratch the plan does not
 * hold), the peak the isolated process measured over its baseline, the rest that none of
 * the figures accounts for, the runtime's own start-up (before the baseline), and whether
 * the peak is explained (ACCOUNTED).
 */
export function memoryMarkdown(results: readonly CellResult[]): string {
  const cells = measuredCells(results);
  const rows = cells.map((r) => {
    const m = r.memory;
    const verdict = accounted(m);
    return `| ${r.modelLabel} | ${r.plannerTitle} | ${r.backend} | ${mib(m.planned)} | ${mib(m.intermediates)} | ${mib(m.io)} | ${mib(m.weights)} | ${mib(m.scratch)} | ${mib(m.baselineRss)} | ${mib(m.peakRssDelta)} | ${mib(m.rest)} | ${m.runtime === undefined ? 'n/a' : mib(m.runtime)} | ${m.job === undefined ? 'n/a' : mib(m.job)} | ${verdict === undefined ? 'n/a' : verdict ? 'yes' : '**no**'} |`;
  });
  const methods = [...new Set(cells.map((r) => r.memory.method))];
  return `${[
    '| network | planner | backend | planned | intermediates | io | weights | scratch | baseline RSS | peak − baseline | rest | runtime | job | explained |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
    `MiB. Peak: ${methods.join('; ')}. Rest = (peak − baseline) − intermediates − io − weights − scratch (scratch: what kernels keep beyond the plan) − the network's kernels in worker threads' heaps (cpu-parallel, in the CSV). ` +
      "Runtime: what starting the executor took (its code compiled and heap settled by a warm-up run, a pool's threads), measured in the same process before the baseline. " +
      "Job: what receiving and checking the job and a dry run of it (its kernels compiled for these shapes) left before the baseline, which is taken again after it; the dry run's memory is held until the end, so that its return to the system falls outside the measurement. " +
      `Explained: peak − baseline at most ${ACCOUNTED.share * 100}% + ${ACCOUNTED.bytes / MIB} MiB over planned + weights + io, and rest at most the larger of ${ACCOUNTED.bytes / MIB} MiB and ${ACCOUNTED.share * 100}% of peak − baseline.`,
  ].join('\n')}\n`;
}

export function memoryCsv(results: readonly CellResult[]): string {
  return stringify([
    ['network', 'planner', 'backend', 'planned', 'intermediates', 'io', 'weights', 'scratch', 'baseline_rss', 'peak_rss', 'peak_rss_delta', 'rest', 'runtime', 'job', 'explained'],
    ...measuredCells(results).map((r) => {
      const m = r.memory;
      return [
        r.modelLabel,
        r.planner,
        r.backend,
        m.planned,
        m.intermediates,
        m.io,
        m.weights,
        m.scratch,
        m.baselineRss,
        m.peakRss,
        m.peakRssDelta,
        m.rest,
        m.runtime ?? '',
        m.job ?? '',
        accounted(m) ?? '',
      ];
    }),
  ]);
}

/** How far the measured saving of a plan over naive is from the planned saving. */
export interface SavingCheck {
  readonly network: string;
  readonly backend: string;
  readonly planned: number;
  readonly measured: number;
  /** measured / planned - 1. */
  readonly deviation: number;
  readonly within: boolean;
}

/** The measured saving may differ from the planned one by this much and still count as the plan's. */
export const SAVING_TOLERANCE = 0.05;

/**
 * Does a plan save on the machine what it saves on paper? Per network and backend: the
 * difference in measured peak (over the baseline) between naive and `planner`, against
 * the difference in planned footprint.
 */
export function savingChecks(results: readonly CellResult[], planner = 'offsets/greedy-by-size'): SavingCheck[] {
  const cells = measuredCells(results);
  const checks: SavingCheck[] = [];
  for (const naive of cells.filter((c) => c.planner.endsWith('/naive'))) {
    const plan = cells.find((c) => c.model === naive.model && c.backend === naive.backend && c.planner === planner);
    // Without a measured peak (a browser page) there is no measured saving to check.
    if (plan === undefined || !Number.isFinite(naive.memory.peakRssDelta) || !Number.isFinite(plan.memory.peakRssDelta)) continue;
    const planned = naive.memory.planned - plan.memory.planned;
    const measured = naive.memory.peakRssDelta - plan.memory.peakRssDelta;
    const deviation = planned === 0 ? 0 : measured / planned - 1;
    checks.push({ network: naive.modelLabel, backend: naive.backend, planned, measured, deviation, within: Math.abs(deviation) <= SAVING_TOLERANCE });
  }
  return checks;
}

export function savingChecksMarkdown(checks: readonly SavingCheck[], planner = 'Greedy by Size'): string {
  if (checks.length === 0) return '';
  const rows = checks.map(
    (c) => `| ${c.network} | ${c.backend} | ${mib(c.planned)} | ${mib(c.measured)} | ${c.deviation >= 0 ? '+' : ''}${(c.deviation * 100).toFixed(1)}% | ${c.within ? 'yes' : '**no**'} |`,
  );
  return `${[
    `Does ${planner} save on this machine what it saves on paper? Naive's measured peak less ${planner}'s, against the planned difference (within ${SAVING_TOLERANCE * 100}%):`,
    '',
    '| network | backend | planned saving MiB | measured saving MiB | deviation | within |',
    '|---|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n')}\n`;
}
