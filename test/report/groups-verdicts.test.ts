import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareMemory, compareTimes, fastest, order, ratioSpan, SAME_MEMORY, weakest, type Span } from '../../src/report/groups-verdicts.ts';

const span = (low: number, high: number): Span => ({ low, high });
/** The thesis' way of writing a time: mean ± 2σ. */
const pm = (ms: number, twoSigma: number): Span => span(ms - twoSigma, ms + twoSigma);

describe('intervals', () => {
  it('orders two intervals only when they are apart', () => {
    expect(order(span(1, 2), span(3, 4))).toBe('below');
    expect(order(span(3, 4), span(1, 2))).toBe('above');
    expect(order(span(1, 3), span(3, 4))).toBe('overlap');
    expect(order(span(1, 10), span(3, 4))).toBe('overlap');
  });

  it('takes the interval of a ratio from the extreme quotients', () => {
    expect(ratioSpan(span(2, 4), span(8, 10))).toEqual({ low: 0.2, high: 0.5 });
  });

  it('gives a finding of two parts the weaker verdict', () => {
    expect(weakest('holds', 'holds in direction')).toBe('holds in direction');
    expect(weakest('holds', 'inconclusive')).toBe('inconclusive');
    expect(weakest('pending', 'inconclusive')).toBe('pending');
    expect(weakest('pending', 'does not hold', 'holds')).toBe('does not hold');
    expect(weakest('holds')).toBe('holds');
  });
});

describe('compareTimes: the thesis relation between two rows against ours', () => {
  // The thesis, ResNeXt: 2 groups 219 ± 2 ms against base's 234 ± 5: apart, 0.91-0.97x.
  const thesis = { a: pm(219, 2), b: pm(234, 5) };

  it("holds when ours goes the same way with a ratio interval meeting the thesis'", () => {
    const c = compareTimes(thesis, { a: span(90, 94), b: span(99, 101) });
    expect(c).toMatchObject({ verdict: 'holds', thesis: 'below', ours: 'below' });
    expect(c.thesisRatio.low).toBeCloseTo(217 / 239, 12);
    expect(c.thesisRatio.high).toBeCloseTo(221 / 229, 12);
  });

  it('holds in direction when ours goes the same way much further', () => {
    expect(compareTimes(thesis, { a: span(60, 62), b: span(99, 101) }).verdict).toBe('holds in direction');
  });

  it('does not hold when ours goes the other way, both sides told apart (a reversal)', () => {
    expect(compareTimes(thesis, { a: span(110, 112), b: span(99, 101) })).toMatchObject({ verdict: 'does not hold', thesis: 'below', ours: 'above' });
  });

  it('cannot tell when our intervals overlap', () => {
    expect(compareTimes(thesis, { a: span(95, 100), b: span(99, 101) })).toMatchObject({ verdict: 'inconclusive', ours: 'overlap' });
  });

  // The thesis, ResNeXt: minimization 235 ± 6 against base 234 ± 5: no difference, 0.96-1.05x.
  const same = { a: pm(235, 6), b: pm(234, 5) };

  it('where the thesis shows no difference: holds when our whole ratio lies in its range, does not hold when apart, else cannot tell', () => {
    expect(compareTimes(same, { a: span(99, 101), b: span(99.5, 100.5) })).toMatchObject({ verdict: 'holds', thesis: 'overlap' });
    // Ours 0.64-0.75x: minimization faster than base here, a difference the thesis does not have.
    expect(compareTimes(same, { a: span(404.4, 440.9), b: span(586.5, 635.4) })).toMatchObject({ verdict: 'does not hold', ours: 'below' });
    // Ours overlaps but is too wide to lie within 0.96-1.05x.
    expect(compareTimes(same, { a: span(80, 120), b: span(99, 101) }).verdict).toBe('inconclusive');
    // Ours told apart by a little, within what the thesis' spread allows: holds.
    expect(compareTimes(same, { a: span(100, 100.5), b: span(101, 101.5) })).toMatchObject({ verdict: 'holds', ours: 'below' });
  });

  const positiveSpan = fc.tuple(fc.double({ min: 1, max: 1000, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true })).map(([low, width]) => span(low, low + width));

  it('holds whatever the relation when ours is the thesis on another scale (a CPU k times slower)', () => {
    fc.assert(
      // Powers of two scale without rounding, so every ratio stays exactly the thesis'.
      fc.property(positiveSpan, positiveSpan, fc.integer({ min: -8, max: 8 }), (a, b, n) => {
        const scaled = (s: Span): Span => span(s.low * 2 ** n, s.high * 2 ** n);
        expect(compareTimes({ a, b }, { a: scaled(a), b: scaled(b) }).verdict).toBe('holds');
      }),
    );
  });

  it('decides row a against b as it decides b against a', () => {
    fc.assert(
      fc.property(positiveSpan, positiveSpan, positiveSpan, positiveSpan, (ta, tb, oa, ob) => {
        expect(compareTimes({ a: tb, b: ta }, { a: ob, b: oa }).verdict).toBe(compareTimes({ a: ta, b: tb }, { a: oa, b: ob }).verdict);
      }),
    );
    // What fast-check once found (seed -9524169): ratios 4e-16 apart, which quotients decided one way forwards and the other backwards.
    const [ta, tb, oa, ob] = [span(1.0000000000000004, 1.0000000000000004), span(1, 1), span(999.9999999999991, 999.9999999999991), span(999.9999999999987, 999.9999999999987)];
    expect(compareTimes({ a: tb, b: ta }, { a: ob, b: oa }).verdict).toBe(compareTimes({ a: ta, b: tb }, { a: oa, b: ob }).verdict);
  });
});

describe('compareMemory: a ratio of the thesis against ours', () => {
  it('holds within 2 percentage points, in direction on the same side, and not on the other', () => {
    // 2 groups over base, ResNeXt: 108.8 / 393.7 = 0.276.
    expect(compareMemory(108.8 / 393.7, 0.29)).toMatchObject({ verdict: 'holds', thesis: 'less', ours: 'less' });
    expect(compareMemory(108.8 / 393.7, 0.4)).toMatchObject({ verdict: 'holds in direction' });
    expect(compareMemory(108.8 / 393.7, 1.3)).toMatchObject({ verdict: 'does not hold', ours: 'more' });
  });

  it('reads "the same" exactly on the thesis\' side and within half a percent on ours', () => {
    expect(compareMemory(1, 1 + SAME_MEMORY)).toMatchObject({ verdict: 'holds', thesis: 'same', ours: 'same' });
    // Layer-wise against base: the same memory in the thesis; 44% less here is not that.
    expect(compareMemory(1, 0.56)).toMatchObject({ verdict: 'does not hold', thesis: 'same', ours: 'less' });
    expect(compareMemory(111.8 / 108.8, 1.2)).toMatchObject({ verdict: 'holds in direction', thesis: 'more', ours: 'more' });
  });
});

describe('fastest: a row below every other', () => {
  it('holds when every other interval lies above, does not hold when one lies below, and cannot tell on an overlap', () => {
    const others = [
      { name: 'base', span: span(229, 239) },
      { name: '1 group', span: span(225, 229) },
    ];
    expect(fastest(span(217, 221), others)).toEqual({ verdict: 'holds', faster: [], tied: [] });
    expect(fastest(span(226, 230), others)).toEqual({ verdict: 'inconclusive', faster: [], tied: ['base', '1 group'] });
    expect(fastest(span(230, 231), others)).toEqual({ verdict: 'does not hold', faster: ['1 group'], tied: ['base'] });
    expect(fastest(span(1, 2), []).verdict).toBe('pending');
  });
});
