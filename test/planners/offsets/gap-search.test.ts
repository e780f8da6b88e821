import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OccupancyIndex, OffsetOrderScan } from '../../../src/planners/offsets/gap-search.ts';
import { positiveProblems } from '../../fixtures/arbitraries.ts';

describe('the occupancy index', () => {
  it('gives the same offsets as the plain walk of Algorithm 3, in any placement order', () => {
    fc.assert(
      fc.property(
        positiveProblems({ maxRecords: 60 }).chain((problem) =>
          fc.tuple(
            fc.constant(problem),
            fc.shuffledSubarray(problem.records.map((_, i) => i), { minLength: problem.records.length }),
            fc.constantFrom(1, 4, 64),
          ),
        ),
        ([problem, order, alignment]) => {
          const fast = new OccupancyIndex(problem, alignment);
          const plain = new OffsetOrderScan(problem, alignment);
          for (const i of order) {
            const offset = plain.bestFit(i);
            expect(fast.bestFit(i)).toBe(offset);
            fast.place(i, offset);
            plain.place(i, offset);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
