import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBounds } from '../../../src/core/bounds.ts';
import { makeProblem, naiveFootprint, type Problem } from '../../../src/core/problem.ts';
import type { TensorUsageRecord } from '../../../src/core/records.ts';
import { budgetedNetwork } from '../../../src/graph/budget-records.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { flexnn, flexnnNoPreload, MAX_PRELOAD_STEPS } from '../../../src/planners/budgeted/flexnn.ts';
import { InfeasibleBudgetError } from '../../../src/planners/budgeted/infeasible-budget.ts';
import { smallestBudgetFor } from '../../../src/planners/budgeted/smallest-budget.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import type { Planner } from '../../../src/planners/planner.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { problems } from '../../fixtures/arbitraries.ts';

const PLANNERS = [flexnn, flexnnNoPreload];

/** Layered budgeted problems: activations over a few operators, a weight and maybe an im2col buffer per layer, a budget around what fits. */
function budgetedProblems(): fc.Arbitrary<{ problem: Problem; budget: number; alignment: number }> {
  const layer = fc.record({
    outputs: fc.array(fc.record({ size: fc.integer({ min: 1, max: 400 }), span: fc.integer({ min: 0, max: 3 }) }), { minLength: 0, maxLength: 2 }),
    weight: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
    scratch: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
  });
  return fc.tuple(fc.array(layer, { minLength: 1, maxLength: 18 }), fc.double({ min: 0.9, max: 2.5, noNaN: true }), fc.constantFrom(1, 4, 64)).map(([layers, scale, alignment]) => {
    const records: TensorUsageRecord[] = [];
    layers.forEach((l, step) => {
      l.outputs.forEach((o, k) => records.push({ id: `a${step}.${k}`, size: o.size, first: step, last: Math.min(layers.length - 1, step + o.span) }));
      if (l.weight !== undefined) records.push({ id: `w${step}`, size: l.weight, first: step, last: step, kind: 'weight', earliest: 0 });
      if (l.scratch !== undefined) records.push({ id: `i${step}`, size: l.scratch, first: step, last: step, kind: 'scratch' });
    });
    const problem = makeProblem('layers', records, layers.length);
    const budget = Math.max(1, Math.round(lowerBounds(problem).offsets * scale) + alignment);
    return { problem, budget, alignment };
  });
}

const fits = (planner: Planner, problem: Problem, budget: number, alignment: number): boolean => {
  try {
    return planAndVerify(planner, problem, { alignment, budget }).valid;
  } catch (error) {
    if (error instanceof InfeasibleBudgetError) return false;
    throw error;
  }
};

describe.each(PLANNERS.map((p) => [p.id, p] as const))('%s', (_, planner) => {
  it('is found by its id', () => {
    expect(findPlanner(planner.id)).toBe(planner);
  });

  it('gives plans that pass the verifier on random budgeted problems, or names the smallest budget that works (and one step below does not)', () => {
    fc.assert(
      fc.property(budgetedProblems(), ({ problem, budget, alignment }) => {
        try {
          const result = planAndVerify(planner, problem, { alignment, budget });
          expect(result.violations).toEqual([]);
          expect(result.footprint).toBeLessThanOrEqual(budget);
          // The loader reads weights in order: load steps never go back in time from layer to layer.
          const weights = problem.records
            .map((r, i) => ({ r, step: result.loadSteps![i] }))
            .filter((w) => w.r.kind === 'weight')
            .sort((a, b) => a.r.first - b.r.first);
          for (let k = 1; k < weights.length; k++) expect(weights[k].step).toBeGreaterThanOrEqual(weights[k - 1].step);
          for (const w of weights) expect(w.r.first - w.step).toBeLessThanOrEqual(planner === flexnn ? MAX_PRELOAD_STEPS : 0);
        } catch (error) {
          if (!(error instanceof InfeasibleBudgetError)) throw error;
          const smallest = error.smallestBudget as number;
          expect(smallest).toBeGreaterThan(budget);
          expect(smallest % alignment).toBe(0);
          expect(fits(planner, problem, smallest, alignment)).toBe(true);
          expect(fits(planner, problem, smallest - alignment, alignment)).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('plans activation-only problems between the lower bound and naive, deterministically, in any record order', () => {
    fc.assert(
      fc.property(problems({ maxRecords: 30 }), fc.integer(), (problem, seed) => {
        const result = planAndVerify(planner, problem);
        expect(result.valid).toBe(true);
        expect(result.footprint).toBeGreaterThanOrEqual(lowerBounds(problem).offsets);
        expect(result.footprint).toBeLessThanOrEqual(naiveFootprint(problem));
        expect(planner.plan(problem)).toEqual(planner.plan(problem));
        const shuffled: Problem = { ...problem, records: fc.sample(fc.shuffledSubarray([...problem.records], { minLength: problem.records.length }), { seed, numRuns: 1 })[0] };
        expect(planAndVerify(planner, shuffled).valid).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});

describe('budgeted/flexnn', () => {
  // a lives over operators 0-2 at the bottom; w1 and w2 are the weights of layers 1 and 2.
  const chain = makeProblem(
    'chain',
    [
      { id: 'a', size: 10, first: 0, last: 2 },
      { id: 'w1', size: 20, first: 1, last: 1, kind: 'weight', earliest: 0 },
      { id: 'w2', size: 20, first: 2, last: 2, kind: 'weight', earliest: 0 },
    ],
    3,
  );

  it('preloads each weight as early as one free range holds it at every step in between', () => {
    // 100 bytes: w1 goes right above a from operator 0 on; w2 above w1, also from operator 0.
    const roomy = flexnn.plan(chain, { budget: 100 });
    expect(roomy.offsets).toEqual([0, 10, 30]);
    expect(roomy.loadSteps).toEqual([0, 0, 0]);
    // 40 bytes: at operator 1 only 10 bytes are left beside w1, so w2 waits for its layer and takes w1's place.
    const tight = flexnn.plan(chain, { budget: 40 });
    expect(tight.offsets).toEqual([0, 10, 10]);
    expect(tight.loadSteps).toEqual([0, 0, 2]);
    // Without preload every weight is loaded at its layer.
    expect(flexnnNoPreload.plan(chain, { budget: 100 }).loadSteps).toEqual([0, 1, 2]);
  });

  it('puts activations at the two ends of the buffer, alternating by layer', () => {
    const two = makeProblem(
      'two',
      [
        { id: 'x', size: 10, first: 0, last: 1 },
        { id: 'y', size: 10, first: 1, last: 2 },
        { id: 'z', size: 10, first: 2, last: 3 },
      ],
      4,
    );
    // Even operators stack up from 0, odd ones down from the top; z reuses x's bottom place.
    expect(flexnn.plan(two, { budget: 100 }).offsets).toEqual([0, 90, 0]);
  });

  it('names the layer and the smallest budget that works when the budget is too small', () => {
    const budget = 128 * 1024;
    const problem = budgetedNetwork(buildZooModel('zoo:mobilenet-v2?input=64'), { budget }).problem;
    const failure = (options: { findSmallestBudget?: boolean }): InfeasibleBudgetError => {
      try {
        planAndVerify(flexnn, problem, { alignment: 64, budget, ...options });
      } catch (error) {
        expect(error).toBeInstanceOf(InfeasibleBudgetError);
        return error as InfeasibleBudgetError;
      }
      throw new Error('the budget was met');
    };
    const named = failure({});
    expect(named.message).toMatch(
      /^budgeted\/flexnn cannot fit (the layer|the activations live) at operator \d+ \(\S+ \d+ B.*\) in a budget of 131072 bytes \(0\.125 MiB\); the smallest budget that works for these records is \d+ bytes/,
    );
    expect(fits(flexnn, problem, named.smallestBudget as number, 64)).toBe(true);
    // A caller that asks only whether the budget fits gets the same layer, and no search.
    const quick = failure({ findSmallestBudget: false });
    expect(quick.message).toBe(named.message.replace(/; the smallest budget that works.*$/, '.'));
    expect([quick.step, quick.records, quick.smallestBudget]).toEqual([named.step, named.records, undefined]);
  });

  it('finds the smallest budget of a network: it fits, and one alignment step below does not', () => {
    const graph = buildZooModel('zoo:mobilenet-v2?input=64');
    const problemAt = (budget: number): Problem => budgetedNetwork(graph, { budget }).problem;
    const smallest = smallestBudgetFor(flexnn, problemAt, 64) as number;
    expect(smallest % 64).toBe(0);
    expect(fits(flexnn, problemAt(smallest), smallest, 64)).toBe(true);
    expect(fits(flexnn, problemAt(smallest - 64), smallest - 64, 64)).toBe(false);
  });
});
