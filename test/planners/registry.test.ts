import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import type { Problem } from '../../src/core/problem.ts';
import { firstUseSequence } from '../../src/planners/first-use-order.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner, PLANNERS } from '../../src/planners/registry.ts';
import { UnknownPlannerError } from '../../src/planners/unknown-planner-error.ts';
import { problems } from '../fixtures/arbitraries.ts';

const naiveOf = { offsets: findPlanner('offsets/naive'), 'shared-objects': findPlanner('shared-objects/naive') };

describe('every planner', () => {
  it('has a unique id of the form <approach>/<name>', () => {
    const ids = PLANNERS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of PLANNERS) expect(p.id.startsWith(`${p.approach}/`)).toBe(true);
    expect(ids).toHaveLength(19);
  });

  describe.each(PLANNERS.map((p) => [p.id, p] as const))('%s', (_, planner) => {
    it('returns a verified plan between the lower bound and naive, on random problems and alignments', () => {
      fc.assert(
        fc.property(problems(), fc.constantFrom(1, 1, 8, 64), (problem, alignment) => {
          const bounds = lowerBounds(problem);
          const result = planAndVerify(planner, problem, { alignment, bounds });
          expect(result.violations).toEqual([]);
          expect(result.valid).toBe(true);
          const bound = planner.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
          expect(result.footprint).toBeGreaterThanOrEqual(bound);
          if (alignment === 1) {
            const naive = planAndVerify(naiveOf[planner.approach], problem, { bounds });
            expect(result.footprint).toBeLessThanOrEqual(naive.footprint);
          }
        }),
        { numRuns: 150 },
      );
    });

    it('is deterministic and accepts records in any order', () => {
      fc.assert(
        fc.property(problems({ maxRecords: 25 }), fc.integer(), (problem, seed) => {
          expect(planner.plan(problem)).toEqual(planner.plan(problem));
          const shuffled: Problem = { ...problem, records: fc.sample(fc.shuffledSubarray([...problem.records], { minLength: problem.records.length }), { seed, numRuns: 1 })[0] };
          expect(planAndVerify(planner, shuffled).valid).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  });
});

describe('the planners that order records by first use (ordersByFirstUse)', () => {
  it("are TFLite's in-order three", () => {
    expect(
      PLANNERS.filter((p) => p.ordersByFirstUse)
        .map((p) => p.id)
        .sort(),
    ).toEqual(['shared-objects/equality', 'shared-objects/greedy-in-order', 'shared-objects/min-cost-flow']);
  });

  it.each(PLANNERS.filter((p) => p.ordersByFirstUse).map((p) => [p.id, p] as const))(
    '%s gives one footprint to every order of the records with one first-use sequence, whatever the tie seed (fast-check)',
    (_, planner) => {
      fc.assert(
        fc.property(problems({ maxRecords: 25 }), fc.integer(), fc.nat(), fc.constantFrom(1, 8), (problem, seed, tieSeed, alignment) => {
          const shuffled: Problem = { ...problem, records: fc.sample(fc.shuffledSubarray([...problem.records], { minLength: problem.records.length }), { seed, numRuns: 1 })[0] };
          fc.pre(firstUseSequence(shuffled) === firstUseSequence(problem));
          const footprint = planAndVerify(planner, problem, { alignment }).footprint;
          expect(planAndVerify(planner, shuffled, { alignment, tieSeed }).footprint).toBe(footprint);
        }),
        { numRuns: 100 },
      );
    },
  );
});

describe('finding planners', () => {
  it('names the closest ids for an unknown one', () => {
    expect(() => findPlanner('offsets/greedy-by-sise')).toThrow(UnknownPlannerError);
    expect(() => findPlanner('offsets/greedy-by-sise')).toThrow(/closest are offsets\/greedy-by-size/);
  });
});
