import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlexnnBudgetConfig } from '../../../src/experiments/studies/flexnn-budget-config.ts';
import type { BudgetCell, Method } from '../../../src/experiments/studies/flexnn-budget.ts';
import { flexnnClaims, spearman } from '../../../src/report/studies/flexnn-claims.ts';

const MiB = 2 ** 20;
const config = { paper: { citation: 'c', device: 'a smartphone', memorySaved: 0.9381, latencyAdded: 0.0364 } } as unknown as FlexnnBudgetConfig;

/** A cell whose timings spread ±`spread` around `ms` (none when `spread` is null). */
function cell(method: Method, budgetMiB: number | null, ms: number, peakMiB: number, spread: number | null = 0.01): BudgetCell {
  return {
    network: 'N',
    source: 'zoo:n',
    method,
    part: budgetMiB === null ? 'baseline' : method === 'flexnn' ? 'budgets' : 'ablation',
    budget: budgetMiB === null ? null : budgetMiB * MiB,
    planner: 'p',
    feasible: true,
    meanLatencyMs: ms,
    ...(spread === null ? {} : { samplesMs: [ms * (1 - spread), ms, ms * (1 + spread), ms] }),
    memory: { planned: 0, intermediates: 0, io: 0, weights: 0, scratch: 0, baselineRss: 0, peakRss: peakMiB * MiB, peakRssDelta: peakMiB * MiB, rest: 0, method: 't' },
  };
}

const verdicts = (cells: BudgetCell[], ablation: number[] = [100]) => Object.fromEntries(flexnnClaims('N', cells, config, ablation).map((c) => [c.claim.replace(/ \(.*\)$/, ''), c.verdict]));

describe('flexnnClaims', () => {
  it('decides every claim that holds as holding', () => {
    const cells = [
      cell('default', null, 1000, 500),
      cell('on-demand', null, 1300, 60),
      cell('flexnn', 30, 1030, 28),
      cell('flexnn', 100, 900, 98),
      cell('flexnn-no-preload', 100, 1200, 50),
      cell('flexnn-no-planning', 100, 1100, 40),
    ];
    expect(verdicts(cells)).toEqual({
      'memory saved against the default': 'holds',
      'latency added against the default, at the smallest budget': 'holds',
      'runs in less memory than on-demand loading': 'holds',
      'preloading helps': 'holds',
      'memory planning helps': 'holds',
      'a larger budget runs faster': 'holds',
    });
    expect(flexnnClaims('N', cells, config, [100]).every((c) => c.reversal === undefined)).toBe(true);
  });

  it('states a reversal in words: on-demand in less memory, an ablation better on both axes, no trade-off, a large cost', () => {
    const cells = [cell('default', null, 1000, 240), cell('on-demand', null, 1050, 13), cell('flexnn', 35, 1400, 33), cell('flexnn', 100, 1500, 98), cell('flexnn-no-planning', 100, 1200, 13)];
    const claims = flexnnClaims('N', cells, config, [100]);
    expect(claims.filter((c) => c.verdict === 'does not hold').map((c) => c.reversal)).toEqual([
      expect.stringMatching(/^N: FlexNN at its smallest budget costs \+40\.0% .+ latency, not a small cost\.$/),
      "N: on-demand loading peaks at 13.0 MiB, below FlexNN's 33.0 MiB at its smallest feasible budget: on-demand runs in less memory here.",
      expect.stringMatching(/^N at 100\.0 MiB: without memory planning, FlexNN runs faster and in less memory \(better on both axes\): FlexNN's latency is \+25\.0% /),
      expect.stringMatching(/^N: FlexNN at 100\.0 MiB is slower than at 35\.0 MiB .+: no trade-off here\.$/),
    ]);
  });

  it('is inconclusive where intervals overlap, peaks are within the noise, or no timings were kept', () => {
    const noisy = [cell('default', null, 1000, 240, 0.4), cell('on-demand', null, 1000, 33.5), cell('flexnn', 35, 1200, 33, 0.4), cell('flexnn', 100, 1150, 98, 0.4)];
    expect(verdicts(noisy, [])).toMatchObject({
      'latency added against the default, at the smallest budget': 'inconclusive',
      'runs in less memory than on-demand loading': 'inconclusive',
      'a larger budget runs faster': 'inconclusive',
    });
    const old = [cell('default', null, 1000, 240, null), cell('flexnn', 35, 1200, 33, null)];
    expect(flexnnClaims('N', old, config, []).find((c) => c.claim.startsWith('latency'))).toMatchObject({ verdict: 'inconclusive', ours: 'no timings recorded' });
  });
});

describe('flexnnClaims on adaptation', () => {
  const adaptive = (adaptMs: number[], peaksMiB: number[]): BudgetCell => ({
    ...cell('flexnn-adaptive', 100, 1000, 90),
    part: 'adaptive',
    adaptations: adaptMs.map((ms, k) => ({
      budget: (200 + 100 * k) * MiB,
      adaptMs: ms,
      planMs: ms / 4,
      footprint: 0,
      meanLatencyMs: 1000,
      latencyMs: { runs: 1, median: 1000, min: 1000, max: 1000, p90: 1000, ci95: [1000, 1000] },
      peakRssDelta: peaksMiB[k] * MiB,
      withinBudget: peaksMiB[k] * MiB <= (200 + 100 * k) * MiB,
      matchesUnbudgeted: true,
      ioStallMs: 0,
    })),
  });
  const paper = { adaptSeconds: 1, citation: 'FlexNN' };
  const of = (c: BudgetCell) => flexnnClaims('N', [c], config, [], paper).map((x) => [x.claim, x.verdict, x.reversal ?? '']);

  it('holds when every change is taken within about a second and every new budget is kept', () => {
    expect(of(adaptive([400, 900], [190, 280]))).toEqual([
      ['adapts to a new budget in about a second', 'holds', ''],
      ['keeps each new budget while it runs', 'holds', ''],
    ]);
  });

  it('says so in words when a change takes far longer or a phase overruns its budget', () => {
    expect(of(adaptive([400, 2600], [210, 280]))).toEqual([
      ['adapts to a new budget in about a second', 'does not hold', 'N: adapting to a new budget took up to 2.60 s, not about a second.'],
      ['keeps each new budget while it runs', 'does not hold', 'N: after a change of budget, the 200.0 MiB phase peaked at 210.0 MiB: over its budget.'],
    ]);
  });
});

describe('spearman', () => {
  it('is 1 for any increasing pairing, -1 for a decreasing one, and within [-1, 1] always', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 12 }), fc.array(fc.integer(), { minLength: 12, maxLength: 12 }), (xs, noise) => {
        expect(
          spearman(
            xs,
            xs.map((x) => 3 * x + 1),
          ),
        ).toBeCloseTo(1, 9);
        expect(
          spearman(
            xs,
            xs.map((x) => -x),
          ),
        ).toBeCloseTo(-1, 9);
        const rho = spearman(xs, noise.slice(0, xs.length));
        if (!Number.isNaN(rho)) expect(Math.abs(rho)).toBeLessThanOrEqual(1 + 1e-12);
      }),
      { numRuns: 100 },
    );
    expect(spearman([1], [2])).toBeNaN();
  });
});
