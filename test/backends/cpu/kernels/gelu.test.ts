import { describe, expect, it } from 'vitest';
import { erf } from '../../../../src/backends/cpu/kernels/erf.ts';
import { expectClose, randomArray, rng, runKernel } from './helpers.ts';

/** erf by its Maclaurin series, summed in float64 until the terms vanish (accurate to ~1e-13 for |x| <= 3). */
function seriesErf(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 200 && Math.abs(term) > 1e-18; n++) {
    term *= (-x * x) / n;
    sum += term / (2 * n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

describe('erf', () => {
  it('agrees with its series to 1e-10 on [-3, 3] and with published values', () => {
    let worst = 0;
    for (let x = -3; x <= 3; x += 0.0037) worst = Math.max(worst, Math.abs(erf(x) - seriesErf(x)));
    expect(worst).toBeLessThan(1e-10);
    // Abramowitz and Stegun, Table 7.1.
    expect(erf(0.5)).toBeCloseTo(0.5204998778130465, 12);
    expect(erf(1)).toBeCloseTo(0.8427007929497149, 12);
    expect(erf(2)).toBeCloseTo(0.9953222650189527, 12);
  });

  it('is odd, 0 at 0, and +-1 beyond the table', () => {
    for (const x of [0.1, 0.7, 1.9, 4.2, 5.99]) expect(erf(-x)).toBe(-erf(x));
    expect(erf(0)).toBe(0);
    expect(erf(6)).toBe(1);
    expect(erf(-40)).toBe(-1);
    expect(erf(Infinity)).toBe(1);
    expect(Number.isNaN(erf(Number.NaN))).toBe(true);
    expect(Math.abs(erf(5.5) - 1)).toBeLessThan(1e-14);
  });
});

describe('Gelu', () => {
  const random = rng(8);
  const x = randomArray(4000, random, 8);

  it('none: x/2 (1 + erf(x / sqrt 2)), within float32 rounding', () => {
    const got = runKernel({ op: 'Gelu', approximate: 'none' }, [x], [[4000]]).output;
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      // Where the series is exact: the float32 rounding of the float64 value (half an ulp) and no more.
      if (Math.abs(v / Math.SQRT2) <= 3) expect(Math.abs(got[i] - 0.5 * v * (1 + seriesErf(v / Math.SQRT2)))).toBeLessThanOrEqual(Math.abs(got[i]) * 2 ** -24 + 1e-12);
      // Beyond, 1 - |erf| < erfc(3) = 2.2e-5: the value is x or 0 to within that share of |x|.
      else expect(Math.abs(got[i] - (v > 0 ? v : 0))).toBeLessThan(2.3e-5 * Math.abs(v));
    }
  });

  it("tanh: GPT-2's x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))", () => {
    const want = Float64Array.from(x, (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3))));
    expectClose(runKernel({ op: 'Gelu', approximate: 'tanh' }, [x], [[4000]]).output, want, 1e-7);
  });

  it('the two forms differ by less than 1e-3 (the approximation GPT-2 chose)', () => {
    const exact = runKernel({ op: 'Gelu', approximate: 'none' }, [x], [[4000]]).output;
    const approx = runKernel({ op: 'Gelu', approximate: 'tanh' }, [x], [[4000]]).output;
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(exact[i] - approx[i]));
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(1e-3);
  });
});
