import { TOLERANCE, type Verdict } from './claims.ts';

/**
 * How the parallel-groups report decides a relation of the thesis on our numbers, in the
 * claims' vocabulary (claims.ts): holds, holds in direction, does not hold, inconclusive
 * (our intervals cannot tell), pending (a figure is missing). Their phone GPU and our CPU
 * share no scale, so only relations between rows of one network are compared, never two
 * times or two sizes.
 */

/** A time as an interval: the thesis' mean ± 2σ, our 95% interval of the median. */
export interface Span {
  readonly low: number;
  readonly high: number;
}

/** Where span a lies against span b: wholly below, wholly above, or the two overlap (not told apart). */
export type Order = 'below' | 'above' | 'overlap';

export function order(a: Span, b: Span): Order {
  if (a.high < b.low) return 'below';
  if (a.low > b.high) return 'above';
  return 'overlap';
}

/** Every a / b for a in `a` and b in `b` (positive times): the interval of a ratio of two intervals. */
export function ratioSpan(a: Span, b: Span): Span {
  return { low: a.low / b.high, high: a.high / b.low };
}

/** The weakest of several verdicts: one part that fails fails the whole, then a missing part, then one we cannot tell. */
export function weakest(...verdicts: readonly Verdict[]): Verdict {
  const rank: readonly Verdict[] = ['does not hold', 'pending', 'inconclusive', 'holds in direction', 'holds'];
  return verdicts.reduce((worst, v) => (rank.indexOf(v) < rank.indexOf(worst) ? v : worst), 'holds');
}

export interface TimeComparison {
  readonly verdict: Verdict;
  /** Row a against row b: the thesis' order, ours. */
  readonly thesis: Order;
  readonly ours: Order;
  /** a / b, as intervals. */
  readonly thesisRatio: Span;
  readonly oursRatio: Span;
}

/**
 * Row a's time against row b's, the thesis' relation against ours. Where the thesis' spans
 * are apart it shows a difference: ours holds when it goes the same way with a ratio
 * interval that meets the thesis' (else only in direction), does not hold when it goes the
 * other way, and is inconclusive when our intervals overlap. Where the thesis' spans
 * overlap it shows no difference: ours holds when our whole ratio interval lies within
 * the thesis' (a difference its spread allows), does not hold when the two ratio intervals
 * are apart (a difference the thesis does not have), and is inconclusive between.
 */
export function compareTimes(thesis: { readonly a: Span; readonly b: Span }, ours: { readonly a: Span; readonly b: Span }): TimeComparison {
  const t = order(thesis.a, thesis.b);
  const o = order(ours.a, ours.b);
  const thesisRatio = ratioSpan(thesis.a, thesis.b);
  const oursRatio = ratioSpan(ours.a, ours.b);
  const ratiosMeet = ratiosOverlap(thesis, ours);
  let verdict: Verdict;
  if (t !== 'overlap') verdict = o === t ? (ratiosMeet ? 'holds' : 'holds in direction') : o === 'overlap' ? 'inconclusive' : 'does not hold';
  else if (ratioWithin(ours, thesis)) verdict = 'holds';
  else verdict = ratiosMeet ? 'inconclusive' : 'does not hold';
  return { verdict, thesis: t, ours: o, thesisRatio, oursRatio };
}

/**
 * Whether the intervals of x.a / x.b and y.a / y.b meet (positive times). This and
 * ratioWithin compare on cross products, not quotients: x.a / x.b against y.a / y.b takes the
 * same products as x.b / x.a against y.b / y.a (a product is the same either way round; a
 * quotient and its reciprocal round apart), so row a against b is decided exactly as b
 * against a, at the boundaries too (fast-check found times 4e-16 apart that quotients
 * decided two ways).
 */
function ratiosOverlap(x: { readonly a: Span; readonly b: Span }, y: { readonly a: Span; readonly b: Span }): boolean {
  return x.a.low * y.b.low <= y.a.high * x.b.high && y.a.low * x.b.low <= x.a.high * y.b.high;
}

/** Whether the interval of inner.a / inner.b lies within that of outer.a / outer.b (positive times). */
function ratioWithin(inner: { readonly a: Span; readonly b: Span }, outer: { readonly a: Span; readonly b: Span }): boolean {
  return inner.a.low * outer.b.high >= outer.a.low * inner.b.high && inner.a.high * outer.b.low <= outer.a.high * inner.b.low;
}

/** Less, the same or more memory than the row compared with. */
export type MemoryOrder = 'less' | 'same' | 'more';

/**
 * "The same memory" on our side: within half a percent. The thesis prints MB to one
 * decimal, and a tenth of its smallest figure (30.3 MB) is 0.3%; its equal figures are
 * exactly equal, and so are most of ours (the same plan), but two plans of one graph may
 * differ by alignment.
 */
export const SAME_MEMORY = 0.005;

const memoryOrder = (ratio: number, same: number): MemoryOrder => (Math.abs(ratio - 1) <= same ? 'same' : ratio < 1 ? 'less' : 'more');

export interface MemoryComparison {
  readonly verdict: Verdict;
  readonly thesis: MemoryOrder;
  readonly ours: MemoryOrder;
}

/**
 * A row's memory over another's, the thesis' ratio against ours (both exact figures, no
 * spread): holds when the two ratios are within the claims' tolerance (2 percentage
 * points), holds in direction when both are less, the same or more, and does not hold otherwise.
 */
export function compareMemory(thesisRatio: number, oursRatio: number): MemoryComparison {
  const thesis = memoryOrder(thesisRatio, 1e-9);
  const ours = memoryOrder(oursRatio, SAME_MEMORY);
  const verdict: Verdict = Math.abs(thesisRatio - oursRatio) <= TOLERANCE.percentagePoints / 100 ? 'holds' : thesis === ours ? 'holds in direction' : 'does not hold';
  return { verdict, thesis, ours };
}

export interface FastestComparison {
  /** holds: below every other; does not hold: another is wholly below; inconclusive: some overlap; pending: nothing to compare. */
  readonly verdict: Verdict;
  /** The others wholly below the candidate, and those that overlap it. */
  readonly faster: readonly string[];
  readonly tied: readonly string[];
}

/** Is the candidate the fastest of all, told apart from every other by the intervals? */
export function fastest(candidate: Span, others: readonly { readonly name: string; readonly span: Span }[]): FastestComparison {
  const faster = others.filter((o) => order(o.span, candidate) === 'below').map((o) => o.name);
  const tied = others.filter((o) => order(o.span, candidate) === 'overlap').map((o) => o.name);
  const verdict: Verdict = others.length === 0 ? 'pending' : faster.length > 0 ? 'does not hold' : tied.length > 0 ? 'inconclusive' : 'holds';
  return { verdict, faster, tied };
}
