import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plantedProblem } from '../../../../src/core/planted.ts';
import { offsetsPlan } from '../../../../src/core/plans.ts';
import { makeProblem, type Problem } from '../../../../src/core/problem.ts';
import type { TensorUsageRecord } from '../../../../src/core/records.ts';
import { verifyPlan } from '../../../../src/core/verify.ts';
import { chainedPart, offsetsOfChained, wholePartState } from '../../../../src/planners/offsets/exact/parts.ts';
import { solveOffsetsExact } from '../../../../src/planners/offsets/exact/solve.ts';

/**
 * Problems made of chains: runs of records of one size, each link starting right after
 * the one before it ends (what chains.ts links), beside a few loose records.
 */
const chainedProblems: fc.Arbitrary<Problem> = fc
  .record({
    chains: fc.array(fc.record({ first: fc.integer({ min: 0, max: 12 }), links: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }), size: fc.integer({ min: 1, max: 9 }) }), {
      minLength: 1,
      maxLength: 10,
    }),
    loose: fc.array(fc.record({ first: fc.integer({ min: 0, max: 20 }), length: fc.integer({ min: 0, max: 5 }), size: fc.integer({ min: 1, max: 9 }) }), { maxLength: 6 }),
  })
  .map(({ chains, loose }) => {
    const records: TensorUsageRecord[] = [];
    for (const chain of chains) {
      let first = chain.first;
      for (const length of chain.links) {
        records.push({ id: `r${records.length}`, size: chain.size * 8, first, last: first + length });
        first += length + 1;
      }
    }
    for (const r of loose) records.push({ id: `r${records.length}`, size: r.size * 8, first: r.first, last: r.first + r.length });
    return makeProblem('chained', records);
  });

describe('chainedPart', () => {
  it('is built once per part, and is undefined where no two records chain', () => {
    const chained = makeProblem('p', [
      { id: 'a', size: 8, first: 0, last: 1 },
      { id: 'b', size: 8, first: 2, last: 3 },
      { id: 'c', size: 4, first: 0, last: 3 },
    ]);
    const state = wholePartState(chained, 1);
    const chains = chainedPart(state)!;
    expect(chains.state.instances[0].n).toBe(2);
    expect(chainedPart(state)).toBe(chains);
    expect([...offsetsOfChained(chains, Float64Array.of(16, 0))]).toEqual([16, 16, 0]);
    expect(chainedPart(wholePartState(makeProblem('q', [{ id: 'a', size: 8, first: 0, last: 1 }]), 1))).toBeUndefined();
  });
});

describe('solve.ts with the chains searched beside the part', () => {
  it('gives valid plans whose claims hold, the same on every run', () => {
    fc.assert(
      fc.property(chainedProblems, (problem) => {
        const options = { alignment: 1, timeLimitMs: Infinity, nodeLimit: 20_000 };
        const outcome = solveOffsetsExact(problem, options);
        const check = verifyPlan(problem, offsetsPlan(problem, outcome.offsets));
        expect(check.valid).toBe(true);
        expect(check.footprint).toBe(outcome.arena);
        expect(outcome.bound).toBeLessThanOrEqual(outcome.arena);
        expect(outcome.optimal).toBe(outcome.arena === outcome.bound);
        expect(solveOffsetsExact(problem, options).offsets).toEqual(outcome.offsets);
      }),
      { numRuns: 150 },
    );
  });

  it('maps a packing found on the chains back to the records', () => {
    // Planted cuts at a fine grain: the part's first runs stop short, and the chains'
    // runs between them find packings (the time cuts of a piece chain its halves).
    for (const seed of [1, 2, 3]) {
      const { problem } = plantedProblem(120, seed, 'guillotine', 64);
      const outcome = solveOffsetsExact(problem, { alignment: 1, timeLimitMs: Infinity, nodeLimit: 120_000 });
      const check = verifyPlan(problem, offsetsPlan(problem, outcome.offsets));
      expect(check.valid).toBe(true);
      expect(check.footprint).toBe(outcome.arena);
    }
  });
});
