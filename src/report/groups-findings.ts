import type { GroupsCell } from '../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../experiments/studies/parallel-groups-config.ts';
import { MARK, type Verdict } from './claims.ts';
import { compareRows, oursSpan, percent, spanText, thesisSpan, thesisTime, type RowComparison } from './groups-comparison.ts';
import { heldBytes, medianWithInterval, mib, tableCell } from './groups-table.ts';
import { fastest, order, ratioSpan, weakest, type MemoryOrder, type Order, type Span } from './groups-verdicts.ts';

/** A relation the thesis shows on one network, decided on ours (the vocabulary of claims.ts). */
export interface GroupsFinding {
  readonly network: string;
  /** The relation as the thesis' figures state it on this network. */
  readonly finding: string;
  readonly verdict: Verdict;
  /** Its figures beside ours; where it does not hold, what we found instead, in words. */
  readonly evidence: string;
}

/** The rows the findings read, by the ids of experiments/parallel-groups.json. */
export const ROWS = { base: 'base', minimization: 'minimization', layerWise: 'layer-wise', oneGroup: '1-group', twoGroups: '2-groups' } as const;

/**
 * "Measured as planned": a parallel row's peak over its baseline, less what its plan holds
 * beyond minimization's, is within this share (plus MEASURED_SLACK_BYTES) of minimization's
 * measured peak: the pool adds nothing that the plan does not name (issue 39).
 */
export const MEASURED_SHARE = 0.05;
export const MEASURED_SLACK_BYTES = 2 ** 20;

const THESIS_ORDER: Record<Order, string> = { below: 'faster', above: 'slower', overlap: 'no difference at its spread' };
const OUR_ORDER: Record<Order, string> = { below: 'faster', above: 'slower', overlap: 'not told apart' };

/** "72.4% less memory than", "the same memory as": a memory ratio as the thesis would say it. */
function memoryPhrase(ratio: number, order: MemoryOrder): string {
  if (order === 'same') return 'the same memory as';
  return `${Math.abs((ratio - 1) * 100).toFixed(1)}% ${order === 'less' ? 'less' : 'more'} memory than`;
}

const labelOf = (config: ParallelGroupsConfig, id: string): string => config.rows.find((r) => r.id === id)?.label ?? id;

function timeEvidence(c: RowComparison, a: string, b: string): string {
  const t = c.time!;
  return (
    `Time, ${a} over ${b}: thesis ${thesisTime(c.thesis.a)} against ${thesisTime(c.thesis.b)} ms, ${spanText(t.thesisRatio)} (${THESIS_ORDER[t.thesis]}); ` +
    `ours ${medianWithInterval(c.ours.a!)} against ${medianWithInterval(c.ours.b!)} ms, ${spanText(t.oursRatio)} (${OUR_ORDER[t.ours]}).` +
    (t.verdict !== 'does not hold'
      ? ''
      : t.thesis === 'overlap'
        ? ` Here ${a} is ${OUR_ORDER[t.ours]} than ${b}, where the thesis shows no difference.`
        : ` Reversed: ${a} is ${OUR_ORDER[t.ours]} than ${b} here, ${THESIS_ORDER[t.thesis]} in the thesis.`)
  );
}

function memoryEvidence(c: RowComparison, a: string, b: string): string {
  const m = c.memory!;
  const oa = c.ours.a!;
  const ob = c.ours.b!;
  return (
    `Memory: thesis ${c.thesis.a!.mb} against ${c.thesis.b!.mb} MB (${percent(m.thesisRatio)}); ours ${mib(heldBytes(oa))} against ${mib(heldBytes(ob))} MiB held ` +
    `(${percent(m.oursRatio)}; the arenas ${mib(oa.footprint)} against ${mib(ob.footprint)} MiB, ${percent(m.plannedRatio)}).` +
    (m.verdict !== 'does not hold' ? '' : ` ${m.thesis === 'same' || m.ours === 'same' ? 'Here' : 'Reversed: here'} ${a} holds ${memoryPhrase(m.oursRatio, m.ours)} ${b}.`)
  );
}

/** Row `row` against row `against` in memory, and in time too where `withTime`: one finding, or none where the thesis gives no figures. */
function relationFinding(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string, row: string, against: string, withTime: boolean): GroupsFinding | undefined {
  const c = compareRows(config, cells, network, row, against);
  const a = labelOf(config, row);
  const b = labelOf(config, against);
  const theirs = c.thesis;
  const spans = { a: thesisSpan(theirs.a), b: thesisSpan(theirs.b) };
  if (theirs.a?.mb === undefined || theirs.b?.mb === undefined || (withTime && (spans.a === undefined || spans.b === undefined))) return undefined;
  const ratio = theirs.a.mb / theirs.b.mb;
  const memory: MemoryOrder = Math.abs(ratio - 1) < 1e-9 ? 'same' : ratio < 1 ? 'less' : 'more';
  let finding = `${a} holds ${memoryPhrase(ratio, memory)} ${b}`;
  const verdicts: Verdict[] = [c.memory?.verdict ?? 'pending'];
  const evidence: string[] = [c.memory ? memoryEvidence(c, a, b) : `Memory: ours not measured (${a} or ${b} did not run).`];
  if (withTime) {
    const t = order(spans.a!, spans.b!);
    finding += t === 'overlap' ? ' at about its time' : t === 'below' ? ', and is faster' : ', but is slower';
    verdicts.push(c.time?.verdict ?? 'pending');
    evidence.push(c.time ? timeEvidence(c, a, b) : `Time: ours not measured (${a} or ${b} did not run).`);
  }
  return { network, finding: `${finding}.`, verdict: weakest(...verdicts), evidence: evidence.join(' ') };
}

/**
 * "2 groups is the fastest row": the candidate's interval below every other row's of the
 * thesis' table (the extra rows are ours), decided on our intervals; the thesis' own figures
 * say whether it shows the same on this network.
 */
function fastestRowFinding(config: ParallelGroupsConfig, cells: readonly GroupsCell[], network: string, thesisName: string | undefined): GroupsFinding | undefined {
  const rows = config.rows.filter((r) => !r.extra);
  if (!rows.some((r) => r.id === ROWS.twoGroups)) return undefined;
  const candidate = labelOf(config, ROWS.twoGroups);
  const others = rows.filter((r) => r.id !== ROWS.twoGroups);
  const finding = `${candidate} is the fastest row of the table.`;
  const theirs = thesisName === undefined ? undefined : config.thesis.values[thesisName];
  const thesisSpans = others.flatMap((r) => {
    const s = thesisSpan(theirs?.[r.id]);
    return s ? [{ name: r.label, span: s }] : [];
  });
  const thesisCandidate = thesisSpan(theirs?.[ROWS.twoGroups]);
  const thesisSays =
    thesisCandidate === undefined || thesisSpans.length < others.length
      ? 'The thesis gives no times for this network.'
      : fastestWords('the thesis', fastest(thesisCandidate, thesisSpans), `${thesisTime(theirs![ROWS.twoGroups])} ms`);
  const ours = tableCell(cells, network, ROWS.twoGroups)?.report;
  const ourSpans = others.flatMap((r) => {
    const report = tableCell(cells, network, r.id)?.report;
    return report ? [{ name: r.label, span: oursSpan(report) }] : [];
  });
  if (ours === undefined || ourSpans.length < others.length) return { network, finding, verdict: 'pending', evidence: `Ours: not every row ran. ${thesisSays}` };
  const result = fastest(oursSpan(ours), ourSpans);
  return { network, finding, verdict: result.verdict, evidence: `${fastestWords('ours', result, `${medianWithInterval(ours)} ms`)} ${thesisSays}` };
}

/** One sentence on a `fastest` comparison: who shows it, or who is faster or not told apart. */
export function fastestWords(who: string, result: ReturnType<typeof fastest>, time: string): string {
  const subject = who.charAt(0).toUpperCase() + who.slice(1);
  if (result.verdict === 'holds') return `${subject}: ${time}, below every other interval.`;
  if (result.faster.length > 0) return `${subject}: ${time}; not so: ${result.faster.join(', ')} ran faster (intervals apart).`;
  return `${subject}: ${time}, not told apart from ${result.tied.join(', ')} (intervals overlap).`;
}

/** The thesis' conclusion, "ResNeXt: 6.85% faster with 72.4% less memory", on its network. */
function headlineFinding(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): GroupsFinding | undefined {
  const h = config.thesis.headline;
  const network = config.networks.find((n) => n.thesis === h?.network)?.label;
  if (h === undefined || network === undefined || !cells.some((c) => c.part === 'table' && c.network === network)) return undefined;
  const a = labelOf(config, h.row);
  const b = labelOf(config, h.against);
  const finding = `${network}: ${a} is ${h.fasterPercent}% faster than ${b} with ${h.lessMemoryPercent}% less memory (the thesis' conclusion).`;
  const c = compareRows(config, cells, network, h.row, h.against);
  const ta = c.thesis.a;
  const tb = c.thesis.b;
  const spans = { a: thesisSpan(ta), b: thesisSpan(tb) };
  const table =
    ta?.ms !== undefined && tb?.ms !== undefined && ta.mb !== undefined && tb.mb !== undefined && spans.a && spans.b
      ? `Its table gives ${((tb.ms / ta.ms - 1) * 100).toFixed(2)}% (${tb.ms} / ${ta.ms} − 1; ${speedupText(ratioSpan(spans.a, spans.b))} within its spans) and ${((1 - ta.mb / tb.mb) * 100).toFixed(1)}% (1 − ${ta.mb} / ${tb.mb}).`
      : 'Its table lacks the figures.';
  if (c.time === undefined || c.memory === undefined) return { network, finding, verdict: 'pending', evidence: `${table} Ours: not measured.` };
  const ratio = c.ours.a!.latencyMs.median / c.ours.b!.latencyMs.median;
  // The thesis' "faster" is the other row's time over this one's, less one; "slower" the reverse.
  const speed = `${ratio <= 1 ? `${((1 / ratio - 1) * 100).toFixed(1)}% faster` : `${((ratio - 1) * 100).toFixed(1)}% slower`} (${speedupText(c.time.oursRatio)})`;
  const lessOrMore = (r: number): string => `${Math.abs((1 - r) * 100).toFixed(1)}% ${r <= 1 ? 'less' : 'more'}`;
  const memory = `${lessOrMore(c.memory.oursRatio)} held memory (the arena ${lessOrMore(c.memory.plannedRatio)})`;
  const turned = [
    c.time.verdict === 'does not hold' ? (c.time.ours === 'overlap' ? '' : `${a} is ${OUR_ORDER[c.time.ours]} than ${b} here`) : '',
    c.memory.verdict === 'does not hold' ? `${a} holds ${memoryPhrase(c.memory.oursRatio, c.memory.ours)} ${b} here` : '',
  ].filter((s) => s !== '');
  return {
    network,
    finding,
    verdict: weakest(c.time.verdict, c.memory.verdict),
    evidence: `${table} Ours: ${speed}, ${memory}.${turned.length > 0 ? ` Not so: ${turned.join('; ')}.` : ''} Time ${MARK[c.time.verdict]}, memory ${MARK[c.memory.verdict]}.`,
  };
}

/** A speed-up interval from the interval of a ratio of times (row over the one it is faster than); below zero: slower. */
const speedupText = (ratio: Span): string => {
  const signed = (r: number): string => `${r < 0 ? '−' : ''}${Math.abs(r * 100).toFixed(1)}%`;
  return `${signed(1 / ratio.high - 1)} to ${signed(1 / ratio.low - 1)}`;
};

/**
 * The thesis' relations on every network it gives figures for, each decided on ours:
 * minimization saves memory at base's time, layer-wise keeps base's memory, 1 and 2 groups
 * keep minimization's, 2 groups is the fastest row (decided on every network, the thesis'
 * own figures beside), and the conclusion's headline on its network.
 */
export function thesisFindings(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): GroupsFinding[] {
  const findings: GroupsFinding[] = [];
  const headline = headlineFinding(config, cells);
  if (headline) findings.push(headline);
  for (const network of config.networks) {
    if (!cells.some((c) => c.part === 'table' && c.network === network.label)) continue;
    const relations = [
      relationFinding(config, cells, network.label, ROWS.minimization, ROWS.base, true),
      relationFinding(config, cells, network.label, ROWS.layerWise, ROWS.base, false),
      relationFinding(config, cells, network.label, ROWS.oneGroup, ROWS.minimization, false),
      relationFinding(config, cells, network.label, ROWS.twoGroups, ROWS.minimization, false),
      fastestRowFinding(config, cells, network.label, network.thesis),
    ];
    for (const f of relations) if (f) findings.push(f);
  }
  return findings;
}

/** The findings as a table, like results/paper/claims.md. */
export function findingsMarkdown(findings: readonly GroupsFinding[]): string {
  const rows = findings.map((f) => `| ${f.network} | ${f.finding} | ${MARK[f.verdict]} | ${f.evidence} |`);
  return ['| network | finding of the thesis | on our numbers | figures |', '|---|---|---|---|', ...rows].join('\n');
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

/** measuredFinding for a network's 2- and 1-group rows. */
export function networkMeasuredFinding(cells: readonly GroupsCell[], network: string): string | undefined {
  const report = (row: string) => tableCell(cells, network, row)?.report;
  return measuredFinding(network, report(ROWS.minimization), [
    { name: '2 groups', r: report(ROWS.twoGroups) },
    { name: '1 group', r: report(ROWS.oneGroup) },
  ]);
}
