import type { ExecuteReport } from '../backends/execution-report.ts';
import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';
import type { ThesisCell } from '../experiments/studies/parallel-groups-thesis.ts';
import { MARK } from './claims.ts';
import { heldBytes, meanTwoSigma, medianWithInterval, mib, tableCell, thesisOf } from './groups-table.ts';
import { compareMemory, compareTimes, type MemoryComparison, type Order, type Span, type TimeComparison } from './groups-verdicts.ts';

/** The thesis' time of a row as an interval: its mean ± two standard deviations. */
export const thesisSpan = (c: ThesisCell | undefined): Span | undefined => (c?.ms === undefined || c.twoSigmaMs === undefined ? undefined : { low: c.ms - c.twoSigmaMs, high: c.ms + c.twoSigmaMs });

/** Our time of a row as an interval: the 95% interval of the median. */
export const oursSpan = (r: ExecuteReport): Span => ({ low: r.latencyMs.ci95[0], high: r.latencyMs.ci95[1] });

/** The thesis' time as it prints it. */
export const thesisTime = (c: ThesisCell | undefined): string => (c?.ms === undefined ? '—' : `${c.ms} ± ${c.twoSigmaMs}`);

export const spanText = (s: Span): string => `${s.low.toFixed(2)}–${s.high.toFixed(2)}x`;

/** A memory ratio as a signed percentage ("−72.4%"). */
export const percent = (ratio: number): string => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)}%`;

/** Row `row` of a network against row `against`: both sides' figures, and each relation decided where both sides have it. */
export interface RowComparison {
  readonly thesis: { readonly a?: ThesisCell; readonly b?: ThesisCell };
  readonly ours: { readonly a?: ExecuteReport; readonly b?: ExecuteReport };
  readonly time?: TimeComparison;
  /** Ours on what the network holds (heldBytes); `plannedRatio`: the arenas alone. */
  readonly memory?: MemoryComparison & { readonly thesisRatio: number; readonly oursRatio: number; readonly plannedRatio: number };
}

export function compareRows(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string, row: string, against: string): RowComparison {
  const thesis = { a: thesisOf(config, network, row), b: thesisOf(config, network, against) };
  const ours = { a: tableCell(cells, network, row)?.report, b: tableCell(cells, network, against)?.report };
  const ta = thesisSpan(thesis.a);
  const tb = thesisSpan(thesis.b);
  const time = ta && tb && ours.a && ours.b ? compareTimes({ a: ta, b: tb }, { a: oursSpan(ours.a), b: oursSpan(ours.b) }) : undefined;
  let memory: RowComparison['memory'];
  if (thesis.a?.mb !== undefined && thesis.b?.mb !== undefined && ours.a && ours.b) {
    const thesisRatio = thesis.a.mb / thesis.b.mb;
    const oursRatio = heldBytes(ours.a) / heldBytes(ours.b);
    memory = { ...compareMemory(thesisRatio, oursRatio), thesisRatio, oursRatio, plannedRatio: ours.a.footprint / ours.b.footprint };
  }
  return { thesis, ours, ...(time ? { time } : {}), ...(memory ? { memory } : {}) };
}

const FASTER: Record<Order, string> = { below: 'faster', above: 'slower', overlap: 'not told apart' };
const MORE: Record<MemoryComparison['ours'], string> = { less: 'less', same: 'the same', more: 'more' };

/** What a time verdict that does not hold means, in words (empty otherwise). */
export function timeWords(t: TimeComparison): string {
  if (t.verdict !== 'does not hold') return '';
  return t.thesis === 'overlap' ? `${FASTER[t.ours]} here, no difference in the thesis` : `reversed: ${FASTER[t.ours]} here, ${FASTER[t.thesis]} in the thesis`;
}

/** What a memory verdict that does not hold means, in words (empty otherwise). */
export function memoryWords(m: MemoryComparison): string {
  if (m.verdict !== 'does not hold') return '';
  return `${m.thesis === 'same' || m.ours === 'same' ? '' : 'reversed: '}${MORE[m.ours]} here, ${MORE[m.thesis]} in the thesis`;
}

const withWords = (mark: string, words: string): string => (words === '' ? mark : `${mark}: ${words}`);

/**
 * Every cell of the thesis' table for one network, its figures beside ours: time as each
 * side states it (the thesis' mean ± 2σ; ours as the same mean ± 2σ and as the median with
 * its 95% interval, which the verdicts use: a median resists the odd slow run), the ratio of
 * each row to its side's base row (times as intervals), and the verdict on that ratio;
 * memory the same way (the thesis' MB against what our network holds, the arena's ratio
 * beside). The base row is the reference of every ratio, so it carries none.
 */
export function comparisonMarkdown(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string): string {
  const base = config.rows[0].id;
  const header =
    '| row | thesis ms, mean ± 2σ | ours ms, mean ± 2σ | ours ms, median [95% CI] | thesis × base time | ours × base time | time | thesis MB | ours MiB held | thesis × base memory | ours × base memory (held · arena) | memory |';
  const rule = '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|';
  const lines = config.rows
    .filter((row) => !row.extra)
    .map((row) => {
      const c = compareRows(config, cells, network, row.id, base);
      const a = c.ours.a;
      const missing = tableCell(cells, network, row.id)?.error ? 'failed' : '—';
      const ours = a ? `${meanTwoSigma(a)} | ${medianWithInterval(a)}` : `${missing} | ${missing}`;
      const held = a ? mib(heldBytes(a)) : '—';
      const mb = c.thesis.a?.mb === undefined ? '—' : String(c.thesis.a.mb);
      if (row.id === base) return `| ${row.label} | ${thesisTime(c.thesis.a)} | ${ours} | 1 | 1 | reference | ${mb} | ${held} | 1 | 1 | reference |`;
      const time = c.time ? [spanText(c.time.thesisRatio), spanText(c.time.oursRatio), withWords(MARK[c.time.verdict], timeWords(c.time))] : ['—', '—', MARK.pending];
      const m = c.memory;
      const memory = m ? [`${m.thesisRatio.toFixed(2)}x`, `${m.oursRatio.toFixed(2)}x · ${m.plannedRatio.toFixed(2)}x`, withWords(MARK[m.verdict], memoryWords(m))] : ['—', '—', MARK.pending];
      return `| ${row.label} | ${thesisTime(c.thesis.a)} | ${ours} | ${time.join(' | ')} | ${mb} | ${held} | ${memory.join(' | ')} |`;
    });
  return [header, rule, ...lines].join('\n');
}

/** The thesis' table as it publishes it (time ms, mean ± 2σ · memory MB), in our rows' order; empty when it has no figures. */
export function thesisOverviewMarkdown(config: ParallelGroupsConfig): string {
  const networks = config.networks.filter((n) => n.thesis !== undefined && config.thesis.values[n.thesis] !== undefined);
  if (networks.length === 0) return '';
  const rows = config.rows.filter((row) => networks.some((n) => config.thesis.values[n.thesis!][row.id] !== undefined));
  const lines = rows.map((row) => {
    const values = networks.map((n) => {
      const c = config.thesis.values[n.thesis!][row.id];
      const parts = [c?.ms === undefined ? undefined : `${thesisTime(c)} ms`, c?.mb === undefined ? undefined : `${c.mb} MB`].filter((p) => p !== undefined);
      return parts.length === 0 ? '—' : parts.join(' · ');
    });
    return `| ${row.label} | ${values.join(' | ')} |`;
  });
  return [`| row | ${networks.map((n) => n.thesis).join(' | ')} |`, `|---|${networks.map(() => '---:').join('|')}|`, ...lines].join('\n');
}
