import { stringify } from 'csv-stringify/sync';
import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { GroupsRow, ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';
import type { ThesisCell } from '../experiments/studies/parallel-groups-thesis.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';

const MIB = 2 ** 20;
export const mib = (bytes: number): string => (bytes / MIB).toFixed(2);
export const ms = (value: number): string => value.toFixed(1);
/** Our time as we report it: the median and its 95% interval. */
export const medianWithInterval = (r: ExecuteReport): string => `${ms(r.latencyMs.median)} [${ms(r.latencyMs.ci95[0])}, ${ms(r.latencyMs.ci95[1])}]`;
/** Our time as the thesis states its own: the mean ± two sample standard deviations ("not recorded" for runs made before the summary kept them). */
export const meanTwoSigma = (r: ExecuteReport): string => (r.latencyMs.mean === undefined || r.latencyMs.sd === undefined ? 'not recorded' : `${ms(r.latencyMs.mean)} ± ${ms(2 * r.latencyMs.sd)}`);

/**
 * The memory a cell holds for the network: the plan's arena, the weights, graph I/O and
 * the scratch kernels keep, as the backend counts them. The thesis' MB look like such a
 * whole (report/studies/parallel-groups.ts says why); the arena alone is `footprint`.
 */
export const heldBytes = (r: ExecuteReport): number => r.footprint + r.memory.weights + r.memory.io + r.memory.scratch;

/** The cell of a table row of a network (undefined where it did not run). */
export function tableCell(cells: readonly GroupsCell[], network: string, row: string): GroupsCell | undefined {
  return cells.find((c) => c.part === 'table' && c.network === network && c.row === row);
}

/** The thesis' figures of a row of a network (our label), where it publishes them. */
export function thesisOf(config: ParallelGroupsConfig, network: string, row: string): ThesisCell | undefined {
  const name = config.networks.find((n) => n.label === network)?.thesis;
  return name === undefined ? undefined : config.thesis.values[name]?.[row];
}

/**
 * Our rows for every network in the layout of the thesis' table: median latency with its
 * 95% interval (ms) and planned intermediates (MiB) per row and network.
 */
export function overviewMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): string {
  const networks = config.networks.map((n) => n.label);
  const header = `| row | ${networks.join(' | ')} |`;
  const rule = `|---|${networks.map(() => '---:').join('|')}|`;
  const lines = config.rows.map((row) => {
    const values = networks.map((network) => {
      const cell = tableCell(cells, network, row.id);
      if (cell?.report === undefined) return cell?.error ? 'failed' : '—';
      return `${medianWithInterval(cell.report)} ms · ${mib(cell.report.footprint)} MiB${cell.report.matchesNaive === false ? ' **(outputs differ)**' : ''}`;
    });
    return `| ${row.extra ? `*${row.label}*` : row.label} | ${values.join(' | ')} |`;
  });
  return [header, rule, ...lines].join('\n');
}

/**
 * One network's rows in full, as they ran: schedule, planner, backend, steps, latency
 * (median, its 95% interval, min-max) and memory (planned intermediates, weights, all the
 * network holds, the measured peak over the baseline). The thesis beside them is
 * groups-comparison.ts.
 */
export function networkMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): string {
  const header = '| row | schedule | planner | backend | steps | ms, median | 95% CI | min–max | planned MiB | weights MiB | held MiB | peak − baseline MiB | busy |';
  const rule = '|---|---|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|';
  const lines = config.rows.map((row: GroupsRow) => {
    const cell = tableCell(cells, network, row.id);
    const label = row.extra ? `*${row.label}*` : row.label;
    const r = cell?.report;
    if (cell === undefined || r === undefined)
      return `| ${label} | ${row.schedule} | ${row.planner} | ${row.backend} | ${cell?.steps ?? '—'} | ${cell?.error ? `failed: ${cell.error}` : 'not run'} | | | | | | | |`;
    const l = r.latencyMs;
    const ours = [
      ms(l.median) + (r.matchesNaive === false ? ' **(outputs differ)**' : ''),
      `[${ms(l.ci95[0])}, ${ms(l.ci95[1])}]`,
      `${ms(l.min)}–${ms(l.max)}`,
      mib(r.footprint),
      mib(r.memory.weights),
      mib(heldBytes(r)),
      mib(r.memory.peakRssDelta),
      r.parallel ? `${(r.parallel.busyFraction * 100).toFixed(0)}%` : '—',
    ];
    return `| ${label} | ${row.schedule} | ${row.planner} | ${row.backend} | ${cell.steps} | ${ours.join(' | ')} |`;
  });
  return [header, rule, ...lines].join('\n');
}

/** Every cell as one CSV row (bytes and milliseconds), for other tools. */
export function groupsCsv(cells: readonly GroupsCell[]): string {
  return stringify([
    [
      'part',
      'network',
      'row',
      'schedule',
      'planner',
      'backend',
      'steps',
      'largest_step',
      'naive_bytes',
      'bound_bytes',
      'planned_bytes',
      'weights_bytes',
      'peak_rss_delta_bytes',
      'median_ms',
      'ci_low_ms',
      'ci_high_ms',
      'device_median_ms',
      'workers',
      'busy_fraction',
      'matches_naive',
      'error',
    ],
    ...cells.map((c) => {
      const r = c.report;
      return [
        c.part,
        c.network,
        c.row ?? '',
        c.schedule,
        c.planner,
        c.backend,
        c.steps,
        c.largestStep,
        c.naive,
        c.bound,
        r?.footprint ?? '',
        r?.memory.weights ?? '',
        r?.memory.peakRssDelta ?? '',
        r?.latencyMs.median ?? '',
        r?.latencyMs.ci95[0] ?? '',
        r?.latencyMs.ci95[1] ?? '',
        r?.deviceMs?.median ?? '',
        r?.parallel?.workers ?? '',
        r?.parallel?.busyFraction ?? '',
        r === undefined ? '' : String(r.matchesNaive),
        c.error ?? '',
      ];
    }),
  ]);
}

/** The WebGPU look: each schedule's steps, plan, wall and device time, on the adapter that ran it. */
export function webgpuMarkdown(cells: readonly GroupsCell[]): string {
  const gpu = cells.filter((c) => c.part === 'webgpu');
  const lines = gpu.map((c) => {
    const r = c.report;
    if (r === undefined) return `| ${c.network} | ${c.schedule} | ${c.steps} | failed: ${c.error ?? ''} | | | |`;
    return `| ${c.network} | ${c.schedule} | ${c.steps} | ${mib(r.footprint)} | ${ms(r.latencyMs.median)} | ${r.deviceMs ? ms(r.deviceMs.median) : '—'} | ${r.matchesNaive === null ? 'not checked' : r.matchesNaive ? 'yes' : '**no**'} |`;
  });
  return ['| network | schedule | steps | planned MiB | wall ms, median | device ms, median | bit-identical to naive |', '|---|---|---:|---:|---:|---:|---|', ...lines].join('\n');
}
