import type { LatencySummary } from '../backends/latency.ts';
import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';
import { mib, tableCell, thesisOf } from './groups-table.ts';

/** "Keeps minimization's memory": the 2-group plan is at most this much larger (the thesis' figures are equal). */
export const KEEPS_MEMORY = 0.01;
/** "Within a few %": the 1-group plan is at most this much larger than minimization's (the thesis: +2.8% on ResNeXt). */
export const FEW_PERCENT = 0.05;

/**
 * "Measured as planned": a parallel row's peak over its baseline, less what its plan holds
 * beyond minimization's, is within this share (plus MEASURED_SLACK_BYTES) of minimization's
 * measured peak: the pool adds nothing that the plan does not name (issue 39).
 */
export const MEASURED_SHARE = 0.05;
export const MEASURED_SLACK_BYTES = 2 ** 20;

/** The rows the findings read, by the ids of experiments/parallel-groups.json. */
const ROWS = { base: 'base', minimization: 'minimization', parallel: ['layer-wise', '1-group', '2-groups'], oneGroup: '1-group', twoGroups: '2-groups' } as const;

const percent = (ratio: number): string => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)}%`;

/** Faster, slower or not told apart: the 95% intervals of the two medians are disjoint, or not. */
export function compareLatency(a: LatencySummary, b: LatencySummary): 'faster' | 'slower' | 'not distinguishable' {
  if (a.ci95[1] < b.ci95[0]) return 'faster';
  if (a.ci95[0] > b.ci95[1]) return 'slower';
  return 'not distinguishable';
}

/**
 * One sentence per finding of the thesis, for one network: does 2 groups keep
 * minimization's memory; is 1 group within a few % of it; is any parallel row faster than
 * base; and ours: do the parallel rows measure what they plan. Each says what we measured and, where the thesis publishes it, what it found.
 * Empty when the rows it needs did not run.
 */
export function networkFindings(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): string[] {
  const report = (row: string) => tableCell(cells, network, row)?.report;
  const thesis = (row: string) => thesisOf(config, network, row);
  const minimization = report(ROWS.minimization);
  const findings: string[] = [];
  const two = report(ROWS.twoGroups);
  if (two && minimization) {
    const ratio = two.footprint / minimization.footprint;
    const theirs = thesis(ROWS.twoGroups)?.mb;
    const theirsMin = thesis(ROWS.minimization)?.mb;
    findings.push(
      `${network}: 2 groups plans ${mib(two.footprint)} MiB against minimization's ${mib(minimization.footprint)} MiB (${percent(ratio)}): it ${ratio <= 1 + KEEPS_MEMORY ? 'keeps' : 'does not keep'} minimization's memory` +
        (theirs !== undefined && theirsMin !== undefined ? ` (thesis: ${theirs} MB against ${theirsMin} MB, ${percent(theirs / theirsMin)}).` : '.'),
    );
  }
  const one = report(ROWS.oneGroup);
  if (one && minimization) {
    const ratio = one.footprint / minimization.footprint;
    const theirs = thesis(ROWS.oneGroup)?.mb;
    const theirsMin = thesis(ROWS.minimization)?.mb;
    findings.push(
      `${network}: 1 group plans ${mib(one.footprint)} MiB, ${percent(ratio)} against minimization: ${ratio <= 1 + FEW_PERCENT ? `within ${FEW_PERCENT * 100}%` : `more than ${FEW_PERCENT * 100}% over`}` +
        (theirs !== undefined && theirsMin !== undefined ? ` (thesis: ${theirs} MB, ${percent(theirs / theirsMin)}).` : '.'),
    );
  }
  const base = report(ROWS.base);
  const parallel = ROWS.parallel.flatMap((row) => {
    const r = report(row);
    return r ? [{ row, r }] : [];
  });
  if (base && parallel.length > 0) {
    const fastest = parallel.reduce((best, p) => (p.r.latencyMs.median < best.r.latencyMs.median ? p : best));
    const label = config.rows.find((r) => r.id === fastest.row)?.label ?? fastest.row;
    const verdict = compareLatency(fastest.r.latencyMs, base.latencyMs);
    const faster = parallel.filter((p) => compareLatency(p.r.latencyMs, base.latencyMs) === 'faster').map((p) => config.rows.find((r) => r.id === p.row)?.label ?? p.row);
    const theirs = ROWS.parallel.flatMap((row) => {
      const t = thesis(row)?.ms;
      return t === undefined ? [] : [{ row, ms: t }];
    });
    const theirsBase = thesis(ROWS.base)?.ms;
    const theirsBest = theirs.length > 0 ? theirs.reduce((a, b) => (b.ms < a.ms ? b : a)) : undefined;
    findings.push(
      `${network}: the fastest parallel row, ${label}, takes ${fastest.r.latencyMs.median.toFixed(1)} ms against base's ${base.latencyMs.median.toFixed(1)} ms (${percent(fastest.r.latencyMs.median / base.latencyMs.median)}; ${verdict}, 95% intervals of the medians); ` +
        `${faster.length > 0 ? `faster than base: ${faster.join(', ')}` : 'no parallel row is faster than base'}` +
        (theirsBest !== undefined && theirsBase !== undefined
          ? ` (thesis: ${config.rows.find((r) => r.id === theirsBest.row)?.label ?? theirsBest.row} ${theirsBest.ms} ms against ${theirsBase} ms, ${percent(theirsBest.ms / theirsBase)}).`
          : '.'),
    );
  }
  const measured = measuredFinding(network, minimization, [
    { name: '2 groups', r: two },
    { name: '1 group', r: one },
  ]);
  if (measured !== undefined) findings.push(measured);
  return findings;
}

type MeasuredReport = { readonly footprint: number; readonly memory: { readonly peakRssDelta: number } };

/**
 * The parallel rows' measured memory against minimization's: each row's peak over its
 * baseline less its plan's excess over minimization's plan, within MEASURED_SHARE +
 * MEASURED_SLACK_BYTES of minimization's peak, or not. The pool's own threads are
 * started before the baseline (memory.runtime) and are not in either figure.
 */
export function measuredFinding(network: string, minimization: MeasuredReport | undefined, rows: readonly { name: string; r: MeasuredReport | undefined }[]): string | undefined {
  if (minimization === undefined || !Number.isFinite(minimization.memory.peakRssDelta)) return undefined;
  const parts = rows.flatMap(({ name, r }) => {
    if (r === undefined || !Number.isFinite(r.memory.peakRssDelta)) return [];
    const beyondPlan = r.memory.peakRssDelta - (r.footprint - minimization.footprint);
    const within = beyondPlan <= minimization.memory.peakRssDelta * (1 + MEASURED_SHARE) + MEASURED_SLACK_BYTES;
    const plan =
      r.footprint === minimization.footprint
        ? 'the same plan size'
        : `a plan ${mib(Math.abs(r.footprint - minimization.footprint))} MiB ${r.footprint > minimization.footprint ? 'larger' : 'smaller'}`;
    return [`${name} ${mib(r.memory.peakRssDelta)} MiB (${plan}; ${within ? 'as planned' : '**more than planned**'})`];
  });
  if (parts.length === 0) return undefined;
  return `${network}: measured peak − baseline, against minimization's ${mib(minimization.memory.peakRssDelta)} MiB: ${parts.join(', ')}; as planned = within ${MEASURED_SHARE * 100}% + ${MEASURED_SLACK_BYTES / 2 ** 20} MiB once the plans' difference is taken off.`;
}
