import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeProblem } from '../../../src/core/problem.ts';
import { OccupancyIndex, OffsetOrderScan } from '../../../src/planners/offsets/gap-search.ts';
import { positiveProblems } from '../../fixtures/arbitraries.ts';

describe('the occupancy index', () => {
  it('gives the same offsets as the plain walk of Algorithm 3 (best fit and first fit), in any placement order', () => {
    fc.assert(
      fc.property(
        positiveProblems({ maxRecords: 60 }).chain((problem) =>
          fc.tuple(
            fc.constant(problem),
            fc.shuffledSubarray(
              problem.records.map((_, i) => i),
              { minLength: problem.records.length },
            ),
            fc.constantFrom(1, 4, 64),
            fc.constantFrom('best' as const, 'first' as const),
          ),
        ),
        ([problem, order, alignment, rule]) => {
          const fast = new OccupancyIndex(problem, alignment);
          const plain = new OffsetOrderScan(problem, alignment);
          for (const i of order) {
            const offset = plain.fit(i, rule);
            expect(fast.fit(i, rule)).toBe(offset);
            fast.place(i, offset);
            plain.place(i, offset);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('first fit takes the lowest gap that fits, best fit the smallest', () => {
    // a: 0-99 at [0, 10); b: 0-99 at [30, 40); c: 0-99 at [45, 50). Gaps under 50: [10, 30) and [40, 45).
    const problem = makeProblem('gaps', [
      { id: 'a', size: 10, first: 0, last: 99 },
      { id: 'b', size: 10, first: 0, last: 99 },
      { id: 'c', size: 5, first: 0, last: 99 },
      { id: 'x', size: 5, first: 10, last: 20 },
    ]);
    for (const search of [new OccupancyIndex(problem, 1), new OffsetOrderScan(problem, 1)]) {
      search.place(0, 0);
      search.place(1, 30);
      search.place(2, 45);
      expect(search.fit(3, 'best')).toBe(40);
      expect(search.fit(3, 'first')).toBe(10);
    }
  });
});
