import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offsetsPlan } from '../../../../src/core/plans.ts';
import { makeProblem } from '../../../../src/core/problem.ts';
import { verifyPlan } from '../../../../src/core/verify.ts';
import { chainsOf } from '../../../../src/planners/offsets/exact/chains.ts';
import { greedyBySize } from '../../../../src/planners/offsets/greedy-by-size.ts';
import { problems } from '../../../fixtures/arbitraries.ts';

describe('chainsOf', () => {
  it('links a record to the one of its size that starts right after it, when neither has a rival', () => {
    const problem = makeProblem('p', [
      { id: 'a', size: 8, first: 0, last: 1 },
      { id: 'b', size: 8, first: 2, last: 4 },
      { id: 'c', size: 8, first: 5, last: 5 },
      { id: 'd', size: 4, first: 2, last: 3 },
      // Two records of size 6 end at 1 and one starts at 2: ambiguous, not linked.
      { id: 'e', size: 6, first: 0, last: 1 },
      { id: 'f', size: 6, first: 1, last: 1 },
      { id: 'g', size: 6, first: 2, last: 3 },
    ]);
    const chains = chainsOf(problem)!;
    expect(chains.problem.records).toEqual([
      { id: 'a', size: 8, first: 0, last: 5 },
      { id: 'd', size: 4, first: 2, last: 3 },
      { id: 'e', size: 6, first: 0, last: 1 },
      { id: 'f', size: 6, first: 1, last: 1 },
      { id: 'g', size: 6, first: 2, last: 3 },
    ]);
    expect([...chains.chainOf]).toEqual([0, 0, 0, 1, 2, 3, 4]);
    expect(chainsOf(makeProblem('q', [{ id: 'x', size: 1, first: 0, last: 0 }]))).toBeUndefined();
  });

  it('gives packings of the chains that are packings of the records', () => {
    fc.assert(
      fc.property(problems({ maxRecords: 30 }), (problem) => {
        const chains = chainsOf(problem);
        if (chains === undefined) return;
        const chained = greedyBySize.plan(chains.problem);
        const offsets = Float64Array.from(problem.records, (r, i) => (r.size === 0 ? 0 : chained.offsets[chains.chainOf[i]]));
        const check = verifyPlan(problem, offsetsPlan(problem, offsets));
        expect(check.valid).toBe(true);
        expect(check.footprint).toBeLessThanOrEqual(chained.footprint);
      }),
      { numRuns: 100 },
    );
  });
});
