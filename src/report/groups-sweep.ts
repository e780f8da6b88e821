import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';
import { oursSpan, thesisSpan, thesisTime } from './groups-comparison.ts';
import { fastestWords, ROWS, type GroupsFinding } from './groups-findings.ts';
import { medianWithInterval, mib, ms, thesisOf } from './groups-table.ts';
import { fastest, order } from './groups-verdicts.ts';

/** The number of groups as words ("1 group", "4 groups"). */
const groupsName = (k: number): string => `${k} group${k === 1 ? '' : 's'}`;

/**
 * The networks a run swept. Runs made before the sweep covered every network keep one
 * network in `sweep.network` (their run.json holds the config as it was parsed then).
 */
export function sweptNetworks(config: ParallelGroupsConfig): readonly string[] {
  const sweep = config.sweep as ParallelGroupsConfig['sweep'] & { network?: string };
  return sweep.networks ?? (sweep.network === undefined ? [] : [sweep.network]);
}

/** The number of groups against memory and latency on one network, its table rows included (they are points of the sweep too). */
export function sweepCells(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): { groups: number; cell: GroupsCell }[] {
  return config.sweep.groups.flatMap((groups) => {
    const cell = cells.find((c) => c.network === network && c.schedule === `groups:${groups}` && c.planner === config.sweep.planner && c.backend === 'cpu-parallel' && c.part !== 'webgpu');
    return cell === undefined ? [] : [{ groups, cell }];
  });
}

/** Every swept network's points: steps, the largest step, the bound and the plan, latency with its interval, the measured peak. */
export function sweepMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): string {
  const lines = sweptNetworks(config).flatMap((network) =>
    sweepCells(config, cells, network).map(({ groups, cell }) => {
      const r = cell.report;
      if (r === undefined) return `| ${network} | ${groups} | ${cell.steps} | ${cell.largestStep} | ${mib(cell.bound)} | failed: ${cell.error ?? ''} | | | | |`;
      return `| ${network} | ${groups} | ${cell.steps} | ${cell.largestStep} | ${mib(cell.bound)} | ${mib(r.footprint)} | ${ms(r.latencyMs.median)} | [${ms(r.latencyMs.ci95[0])}, ${ms(r.latencyMs.ci95[1])}] | ${r.parallel ? `${(r.parallel.busyFraction * 100).toFixed(0)}%` : '—'} | ${mib(r.memory.peakRssDelta)} |`;
    }),
  );
  return [
    `| network | groups | steps | largest step | lower bound MiB | planned MiB (${config.sweep.planner}) | ms, median | 95% CI | busy | peak − baseline MiB |`,
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...lines,
  ].join('\n');
}

/**
 * "2 groups is the fastest": the thesis found it on ResNeXt with 1 and 2 groups; the sweep
 * asks it of every number of groups it ran on a network, decided on the intervals. The
 * thesis' own 1 against 2 groups on that network is given beside. None where the sweep
 * has no 2 groups.
 */
export function sweepFinding(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): GroupsFinding | undefined {
  if (!config.sweep.groups.includes(2)) return undefined;
  const points = sweepCells(config, cells, network).filter((p) => p.cell.report !== undefined);
  const candidate = points.find((p) => p.groups === 2)?.cell.report;
  const others = points.filter((p) => p.groups !== 2).map((p) => ({ name: groupsName(p.groups), span: oursSpan(p.cell.report!) }));
  const missing = config.sweep.groups.filter((k) => !points.some((p) => p.groups === k));
  const finding = `2 groups is the fastest of ${points.map((p) => p.groups).join(', ') || 'no'} groups per layer.`;
  const notRun = missing.length > 0 ? ` Not run: ${missing.map(groupsName).join(', ')}.` : '';
  const one = thesisSpan(thesisOf(config, network, ROWS.oneGroup));
  const two = thesisSpan(thesisOf(config, network, ROWS.twoGroups));
  const theirs =
    one && two
      ? ` The thesis (1 and 2 groups only): ${thesisTime(thesisOf(config, network, ROWS.twoGroups))} against ${thesisTime(thesisOf(config, network, ROWS.oneGroup))} ms, ${{ below: 'faster', above: 'slower', overlap: 'no difference at its spread' }[order(two, one)]}.`
      : '';
  if (candidate === undefined || others.length === 0) return { network, finding, verdict: 'pending', evidence: `Ours: too few points of the sweep ran.${notRun}${theirs}` };
  const result = fastest(oursSpan(candidate), others);
  return { network, finding, verdict: result.verdict, evidence: `${fastestWords('ours', result, `${medianWithInterval(candidate)} ms`)}${notRun}${theirs}` };
}
