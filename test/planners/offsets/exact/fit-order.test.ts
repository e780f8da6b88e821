import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offsetsPlan } from '../../../../src/core/plans.ts';
import { verifyPlan } from '../../../../src/core/verify.ts';
import { exact } from '../../../../src/planners/offsets/exact.ts';
import { Budget } from '../../../../src/planners/offsets/exact/budget.ts';
import { searchLowestValley } from '../../../../src/planners/offsets/exact/lowest-valley-search.ts';
import { wholePartState } from '../../../../src/planners/offsets/exact/parts.ts';
import { fitClass } from '../../../../src/planners/offsets/exact/search-setup.ts';
import { searchPacking } from '../../../../src/planners/offsets/exact/skyline-search.ts';
import { positiveProblems } from '../../../fixtures/arbitraries.ts';

describe('fitClass', () => {
  it('ranks a move that fills the valley width and meets a neighbour first, then width, then meeting, then neither', () => {
    // Valley ending at point 9, neighbours at heights 5 (left) and 8 (right), roof 12.
    expect(fitClass(9, 8, 9, 5, 8, 12)).toBe(0);
    expect(fitClass(9, 7, 9, 5, 8, 12)).toBe(1);
    expect(fitClass(6, 5, 9, 5, 8, 12)).toBe(2);
    expect(fitClass(6, 12, 9, 5, 8, 12)).toBe(2);
    expect(fitClass(6, 7, 9, 5, 8, 12)).toBe(3);
    expect(fitClass(6, 7, 9, Infinity, Infinity, 12)).toBe(3);
  });
});

const small = positiveProblems({ maxRecords: 7, maxTime: 6, maxLifetime: 4, sizes: fc.integer({ min: 1, max: 40 }) });

describe('the searches with moves ordered by fit (fitFirst)', () => {
  it('stay complete and sound: both engines pack at the proven optimum, validly, and prove nothing fits below it', () => {
    fc.assert(
      fc.property(small, fc.constantFrom(1, 4), fc.constantFrom('size', 'life', 'short') as fc.Arbitrary<'size' | 'life' | 'short'>, (problem, alignment, order) => {
        fc.pre(problem.records.length > 0);
        const best = exact.plan(problem, { alignment, threads: 1 });
        expect(best.optimal).toBe(true);
        const state = wholePartState(problem, alignment);
        const rank = state.ranks.get(order)!;
        for (const instance of state.instances) {
          for (const engine of [searchPacking, searchLowestValley]) {
            const at = engine(instance, best.footprint, Budget.of(60_000), { rank, fitFirst: true });
            expect(at.status).toBe('found');
            if (at.status !== 'found') continue;
            expect(at.arena).toBeLessThanOrEqual(best.footprint);
            if (instance === state.instances[0]) {
              const plan = offsetsPlan(problem, Array.from(at.offsets));
              expect(verifyPlan(problem, plan, { alignment }).valid).toBe(true);
            }
            expect(engine(instance, best.footprint - 1, Budget.of(60_000), { rank, fitFirst: true }).status).toBe('infeasible');
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});
