import type { AdaptiveRun, FlexnnBudgetConfig } from '../../experiments/studies/flexnn-budget-config.ts';
import type { BudgetCell, Method } from '../../experiments/studies/flexnn-budget.ts';
import { MARK, TOLERANCE, type Verdict } from '../claims.ts';
import { meanRatioInterval } from '../mean-intervals.ts';

/**
 * FlexNN's claims (its abstract and section 5, ../shared/paper/seeds/002), each decided on
 * one network's cells from one storage, never assumed: the memory it saves and the latency
 * it adds against the default, budgets below on-demand loading's, both ablations helping,
 * and the trade-off (a larger budget, a lower latency). Timings are decided on 95% intervals
 * of ratios of means (mean-intervals.ts); peaks, single measurements of resident memory,
 * on a margin of PEAK_NOISE_BYTES. A claim that comes out the other way round says so.
 */
export interface FlexnnClaim {
  readonly claim: string;
  readonly network: string;
  /** FlexNN's figure or statement, as the source gives it. */
  readonly theirs: string;
  /** Our figure, with its interval where it is a timing. */
  readonly ours: string;
  readonly verdict: Verdict;
  /** For a claim that does not hold: the reversal in words. */
  readonly reversal?: string;
}

/** Peaks closer than this are not told apart: resident memory moves by about this much between runs of the same plan. */
export const PEAK_NOISE_BYTES = 2 ** 20;
/** A latency cost above this is no longer the "small" one FlexNN reports. */
export const SMALL_COST = 0.25;
/** A memory saving above this counts as the same direction as FlexNN's. */
export const LARGE_SAVING = 0.5;

const MIB = 2 ** 20;
const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;
const pct = (fraction: number): string => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
const peak = (cell: BudgetCell): number => cell.memory?.peakRssDelta ?? Number.NaN;

/** Where FlexNN's headline was measured, as far as its source says. */
function source(paper: FlexnnBudgetConfig['paper']): string {
  return `${paper.device}; ${paper.network ?? 'no network named'}`;
}

function find(cells: readonly BudgetCell[], method: Method, budget?: number): BudgetCell | undefined {
  return cells.find((c) => c.method === method && c.feasible && (budget === undefined || c.budget === budget));
}

/** FlexNN's sweep, feasible cells by budget. */
function sweep(cells: readonly BudgetCell[]): BudgetCell[] {
  return cells.filter((c) => c.method === 'flexnn' && c.feasible && c.budget !== null).sort((a, b) => (a.budget as number) - (b.budget as number));
}

/** A ratio of means, decided on its interval: under `below` holds, over `above` does not, otherwise inconclusive. */
function ratioText(a: BudgetCell, b: BudgetCell): { text: string; interval: readonly [number, number] } | undefined {
  const found = meanRatioInterval(a.samplesMs, b.samplesMs);
  if (found === undefined) return undefined;
  const [lo, hi] = found.interval;
  return { text: `${pct(found.ratio - 1)} (95% interval ${pct(lo - 1)} to ${pct(hi - 1)})`, interval: found.interval };
}

function memorySaved(network: string, base: BudgetCell, smallest: BudgetCell, paper: FlexnnBudgetConfig['paper']): FlexnnClaim {
  const saved = 1 - peak(smallest) / peak(base);
  const close = Math.abs(saved - paper.memorySaved) * 100 <= TOLERANCE.percentagePoints;
  const verdict: Verdict = close || saved > paper.memorySaved ? 'holds' : saved > LARGE_SAVING ? 'holds in direction' : 'does not hold';
  return {
    claim: 'memory saved against the default (every weight resident)',
    network,
    theirs: `${(paper.memorySaved * 100).toFixed(2)}% (${source(paper)})`,
    ours: `${(saved * 100).toFixed(1)}%: ${mib(peak(smallest))} at the smallest budget against ${mib(peak(base))}`,
    verdict,
    ...(verdict === 'does not hold' ? { reversal: `${network}: FlexNN at its smallest budget saves ${(saved * 100).toFixed(1)}% of the default's peak, not most of it.` } : {}),
  };
}

function latencyAdded(network: string, base: BudgetCell, smallest: BudgetCell, paper: FlexnnBudgetConfig['paper']): FlexnnClaim {
  const found = ratioText(smallest, base);
  const theirs = `${pct(paper.latencyAdded)} (${source(paper)})`;
  const claim = 'latency added against the default, at the smallest budget';
  if (found === undefined) return { claim, network, theirs, ours: 'no timings recorded', verdict: 'inconclusive' };
  const [lo, hi] = found.interval.map((r) => r - 1);
  const near = paper.latencyAdded + TOLERANCE.percentagePoints / 100;
  const verdict: Verdict = hi <= near ? 'holds' : hi < SMALL_COST ? 'holds in direction' : lo > SMALL_COST ? 'does not hold' : 'inconclusive';
  return {
    claim,
    network,
    theirs,
    ours: found.text,
    verdict,
    ...(verdict === 'does not hold' ? { reversal: `${network}: FlexNN at its smallest budget costs ${found.text} latency, not a small cost.` } : {}),
  };
}

function belowOnDemand(network: string, onDemand: BudgetCell, smallest: BudgetCell): FlexnnClaim {
  const difference = peak(smallest) - peak(onDemand);
  const verdict: Verdict = difference < -PEAK_NOISE_BYTES ? 'holds' : difference > PEAK_NOISE_BYTES ? 'does not hold' : 'inconclusive';
  return {
    claim: 'runs in less memory than on-demand loading',
    network,
    theirs: 'lower budgets than on-demand "in most cases"',
    ours: `FlexNN ${mib(peak(smallest))} at its smallest budget (${mib(smallest.budget as number)}), on-demand ${mib(peak(onDemand))}`,
    verdict,
    ...(verdict === 'does not hold'
      ? { reversal: `${network}: on-demand loading peaks at ${mib(peak(onDemand))}, below FlexNN's ${mib(peak(smallest))} at its smallest feasible budget: on-demand runs in less memory here.` }
      : {}),
  };
}

function ablation(network: string, flexnn: BudgetCell, without: BudgetCell, what: 'preloading' | 'memory planning'): FlexnnClaim {
  const claim = `${what} helps (FlexNN against FlexNN without it, ${mib(flexnn.budget as number)})`;
  const theirs = 'FlexNN faster than either ablation';
  const found = ratioText(flexnn, without);
  const memory = `${mib(peak(flexnn))} against ${mib(peak(without))}`;
  if (found === undefined) return { claim, network, theirs, ours: `no timings recorded; peaks ${memory}`, verdict: 'inconclusive' };
  const [lo, hi] = found.interval;
  const verdict: Verdict = hi < 1 ? 'holds' : lo > 1 ? 'does not hold' : 'inconclusive';
  const bothAxes = verdict === 'does not hold' && peak(without) < peak(flexnn) - PEAK_NOISE_BYTES;
  return {
    claim,
    network,
    theirs,
    ours: `latency ${found.text}; peaks ${memory}`,
    verdict,
    ...(verdict === 'does not hold'
      ? {
          reversal: `${network} at ${mib(flexnn.budget as number)}: without ${what}, FlexNN runs faster${bothAxes ? ' and in less memory (better on both axes)' : ''}: FlexNN's latency is ${found.text} over it.`,
        }
      : {}),
  };
}

function tradeOff(network: string, cells: readonly BudgetCell[]): FlexnnClaim | undefined {
  const swept = sweep(cells);
  if (swept.length < 2) return undefined;
  const [smallest, largest] = [swept[0], swept[swept.length - 1]];
  const found = ratioText(largest, smallest);
  const claim = `a larger budget runs faster (${mib(largest.budget as number)} against ${mib(smallest.budget as number)})`;
  const theirs = 'latency falls as the budget grows (Figure 10)';
  const rho = spearman(
    swept.map((c) => c.budget as number),
    swept.map((c) => c.meanLatencyMs ?? Number.NaN),
  );
  if (found === undefined) return { claim, network, theirs, ours: 'no timings recorded', verdict: 'inconclusive' };
  const [lo, hi] = found.interval;
  const verdict: Verdict = hi < 1 ? 'holds' : lo > 1 ? 'does not hold' : 'inconclusive';
  return {
    claim,
    network,
    theirs,
    ours: `${found.text}; rank correlation of budget and mean latency over ${swept.length} budgets ${rho.toFixed(2)}`,
    verdict,
    ...(verdict === 'does not hold'
      ? { reversal: `${network}: FlexNN at ${mib(largest.budget as number)} is slower than at ${mib(smallest.budget as number)} (${found.text}): no trade-off here.` }
      : {}),
  };
}

function adaptation(network: string, cell: BudgetCell, paper: AdaptiveRun['paper']): FlexnnClaim[] {
  const phases = cell.adaptations ?? [];
  if (phases.length === 0) return [];
  const slowest = Math.max(...phases.map((p) => p.adaptMs));
  const claims: FlexnnClaim[] = [];
  if (paper !== undefined) {
    const limit = paper.adaptSeconds * 1000 * (1 + TOLERANCE.times);
    const verdict: Verdict = slowest <= limit ? 'holds' : 'does not hold';
    claims.push({
      claim: 'adapts to a new budget in about a second',
      network,
      theirs: `${paper.adaptSeconds} s (${paper.citation})`,
      ours: `${(slowest / 1000).toFixed(2)} s at most over ${phases.length} changes (re-slice, plan, verify, prepare)`,
      verdict,
      ...(verdict === 'does not hold' ? { reversal: `${network}: adapting to a new budget took up to ${(slowest / 1000).toFixed(2)} s, not about a second.` } : {}),
    });
  }
  const over = phases.filter((p) => !p.withinBudget);
  claims.push({
    claim: 'keeps each new budget while it runs',
    network,
    theirs: 'adapts to budgets changed at run time',
    ours: over.length === 0 ? `all ${phases.length} phases within their budgets as measured` : `${over.length} of ${phases.length} phases over their budgets`,
    verdict: over.length === 0 ? 'holds' : 'does not hold',
    ...(over.length === 0 ? {} : { reversal: `${network}: after a change of budget, ${over.map((p) => `the ${mib(p.budget)} phase peaked at ${mib(p.peakRssDelta)}`).join(', ')}: over its budget.` }),
  });
  return claims;
}

/** Spearman's rank correlation (ties ranked by their mean rank); NaN for fewer than two points. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const ranks = (values: readonly number[]): number[] => {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    const rank = new Array<number>(values.length);
    for (let start = 0; start < order.length; ) {
      let end = start;
      while (end + 1 < order.length && order[end + 1][0] === order[start][0]) end++;
      for (let k = start; k <= end; k++) rank[order[k][1]] = (start + end) / 2 + 1;
      start = end + 1;
    }
    return rank;
  };
  if (xs.length < 2) return Number.NaN;
  const [rx, ry] = [ranks(xs), ranks(ys)];
  const mean = (rx.length + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) ** 2;
    syy += (ry[i] - mean) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

/**
 * Every claim on one network's cells from one storage (the default's cell, which reads no
 * storage, is the same for all): claims whose cells are missing (a budget the sweep did not
 * reach, an ablation not run there) are left out.
 */
export function flexnnClaims(
  network: string,
  cells: readonly BudgetCell[],
  config: Pick<FlexnnBudgetConfig, 'paper'>,
  ablationBudgets: readonly number[],
  adaptivePaper?: AdaptiveRun['paper'],
): FlexnnClaim[] {
  const base = find(cells, 'default');
  const onDemand = find(cells, 'on-demand');
  const smallest = sweep(cells)[0];
  const claims: FlexnnClaim[] = [];
  if (base && smallest) claims.push(memorySaved(network, base, smallest, config.paper), latencyAdded(network, base, smallest, config.paper));
  if (onDemand && smallest) claims.push(belowOnDemand(network, onDemand, smallest));
  for (const budgetMiB of ablationBudgets) {
    const budget = Math.round(budgetMiB * MIB);
    const flexnn = find(cells, 'flexnn', budget);
    if (flexnn === undefined) continue;
    const noPreload = find(cells, 'flexnn-no-preload', budget);
    const noPlanning = find(cells, 'flexnn-no-planning', budget);
    if (noPreload) claims.push(ablation(network, flexnn, noPreload, 'preloading'));
    if (noPlanning) claims.push(ablation(network, flexnn, noPlanning, 'memory planning'));
  }
  const curve = tradeOff(network, cells);
  if (curve) claims.push(curve);
  const adaptive = cells.find((c) => c.method === 'flexnn-adaptive' && c.feasible);
  if (adaptive) claims.push(...adaptation(network, adaptive, adaptivePaper));
  return claims;
}

/** The claims as a Markdown table. */
export function claimsTable(claims: readonly FlexnnClaim[]): string {
  return ["| claim | network | FlexNN's | ours | verdict |", '|---|---|---|---|---|', ...claims.map((c) => `| ${c.claim} | ${c.network} | ${c.theirs} | ${c.ours} | ${MARK[c.verdict]} |`)].join('\n');
}
