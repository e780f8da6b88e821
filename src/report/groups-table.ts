import { stringify } from 'csv-stringify/sync';
import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { GroupsRow, ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';

const MIB = 2 ** 20;
export const mib = (bytes: number): string => (bytes / MIB).toFixed(2);
const ms = (value: number): string => value.toFixed(1);
const times = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}x`);

/** The cell of a table row of a network (undefined where it did not run). */
export function tableCell(cells: readonly GroupsCell[], network: string, row: string): GroupsCell | undefined {
  return cells.find((c) => c.part === 'table' && c.network === network && c.row === row);
}

/** The thesis' figures of a row of a network, where it publishes them. */
export function thesisOf(config: ParallelGroupsConfig, network: string, row: string): { ms?: number; mb?: number } | undefined {
  const name = config.networks.find((n) => n.label === network)?.thesis;
  return name === undefined ? undefined : config.thesis.values[name]?.[row];
}

/**
 * Our rows against the thesis' table for every network, side by side: median latency (ms)
 * and planned intermediates (MiB) per row and network, the layout of the thesis' table.
 */
export function overviewMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): string {
  const networks = config.networks.map((n) => n.label);
  const header = `| row | ${networks.join(' | ')} |`;
  const rule = `|---|${networks.map(() => '---:').join('|')}|`;
  const lines = config.rows.map((row) => {
    const values = networks.map((network) => {
      const cell = tableCell(cells, network, row.id);
      if (cell?.report === undefined) return cell?.error ? 'failed' : '—';
      return `${ms(cell.report.latencyMs.median)} ms · ${mib(cell.report.footprint)} MiB${cell.report.matchesNaive === false ? ' **(outputs differ)**' : ''}`;
    });
    return `| ${row.extra ? `*${row.label}*` : row.label} | ${values.join(' | ')} |`;
  });
  return [header, rule, ...lines].join('\n');
}

/**
 * One network's rows in full: what ran (schedule, planner, backend, steps), latency
 * (median, its 95% interval, min-max), memory (planned intermediates, weights, the measured
 * peak over the baseline), ours as ratios to our base row, and the thesis' figures and
 * ratios to its base row where it publishes them.
 */
export function networkMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): string {
  const base = tableCell(cells, network, config.rows[0].id)?.report;
  const thesisBase = thesisOf(config, network, config.rows[0].id);
  const header =
    '| row | schedule | planner | backend | steps | ms, median | 95% CI | min–max | planned MiB | weights MiB | peak − baseline MiB | busy | × base time | × base memory | thesis ms | thesis MB | thesis × time | thesis × memory |';
  const rule = '|---|---|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines = config.rows.map((row: GroupsRow) => {
    const cell = tableCell(cells, network, row.id);
    const thesis = thesisOf(config, network, row.id);
    const theirs = [
      thesis?.ms === undefined ? '—' : String(thesis.ms),
      thesis?.mb === undefined ? '—' : String(thesis.mb),
      times(thesis?.ms === undefined || thesisBase?.ms === undefined ? undefined : thesis.ms / thesisBase.ms),
      times(thesis?.mb === undefined || thesisBase?.mb === undefined ? undefined : thesis.mb / thesisBase.mb),
    ];
    const label = row.extra ? `*${row.label}*` : row.label;
    const r = cell?.report;
    if (cell === undefined || r === undefined)
      return `| ${label} | ${row.schedule} | ${row.planner} | ${row.backend} | ${cell?.steps ?? '—'} | ${cell?.error ? `failed: ${cell.error}` : 'not run'} | | | | | | | | | ${theirs.join(' | ')} |`;
    const l = r.latencyMs;
    const ours = [
      ms(l.median) + (r.matchesNaive === false ? ' **(outputs differ)**' : ''),
      `[${ms(l.ci95[0])}, ${ms(l.ci95[1])}]`,
      `${ms(l.min)}–${ms(l.max)}`,
      mib(r.footprint),
      mib(r.memory.weights),
      mib(r.memory.peakRssDelta),
      r.parallel ? `${(r.parallel.busyFraction * 100).toFixed(0)}%` : '—',
      times(base ? l.median / base.latencyMs.median : undefined),
      times(base ? r.footprint / base.footprint : undefined),
    ];
    return `| ${label} | ${row.schedule} | ${row.planner} | ${row.backend} | ${cell.steps} | ${ours.join(' | ')} | ${theirs.join(' | ')} |`;
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

/** The number of groups against memory and latency on the sweep's network (its table rows included). */
export function sweepCells(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): { groups: number; cell: GroupsCell }[] {
  return config.sweep.groups.flatMap((groups) => {
    const cell = cells.find(
      (c) => c.network === config.sweep.network && c.schedule === `groups:${groups}` && c.planner === config.sweep.planner && c.backend === 'cpu-parallel' && c.part !== 'webgpu',
    );
    return cell === undefined ? [] : [{ groups, cell }];
  });
}

export function sweepMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): string {
  const lines = sweepCells(config, cells).map(({ groups, cell }) => {
    const r = cell.report;
    if (r === undefined) return `| ${groups} | ${cell.steps} | ${cell.largestStep} | ${mib(cell.bound)} | failed: ${cell.error ?? ''} | | | | |`;
    return `| ${groups} | ${cell.steps} | ${cell.largestStep} | ${mib(cell.bound)} | ${mib(r.footprint)} | ${ms(r.latencyMs.median)} | [${ms(r.latencyMs.ci95[0])}, ${ms(r.latencyMs.ci95[1])}] | ${r.parallel ? `${(r.parallel.busyFraction * 100).toFixed(0)}%` : '—'} | ${mib(r.memory.peakRssDelta)} |`;
  });
  return [
    `| groups | steps | largest step | lower bound MiB | planned MiB (${config.sweep.planner}) | ms, median | 95% CI | busy | peak − baseline MiB |`,
    '|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...lines,
  ].join('\n');
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
