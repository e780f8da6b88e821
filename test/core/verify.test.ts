import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offsetsPlan, sharedObjectsPlan, type OffsetsPlan } from '../../src/core/plans.ts';
import { verifyPlan } from '../../src/core/verify.ts';
import { offsetsAreValid, problems } from '../fixtures/arbitraries.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

const chain = problemOf(TEST_VECTORS.chain.records);
const good = TEST_VECTORS.chain.offsets.greedy_by_size.offsets;

function kinds(plan: Parameters<typeof verifyPlan>[1], options = {}): string[] {
  return verifyPlan(chain, plan, options).violations.map((v) => v.kind);
}

describe('verifier on offsets plans', () => {
  it('accepts the published plan and recomputes its footprint', () => {
    const result = verifyPlan(chain, offsetsPlan(chain, good));
    expect(result).toEqual({ valid: true, violations: [], footprint: 96 });
  });

  it('rejects two live records that overlap in memory', () => {
    // Records 0 (16 B, ops 0-1) and 1 (8 B, ops 1-2) are live at operator 1.
    const plan: OffsetsPlan = { approach: 'offsets', offsets: [0, 8, 0, 64, 0], footprint: 96 };
    const result = verifyPlan(chain, plan);
    expect(result.valid).toBe(false);
    expect(result.violations[0].kind).toBe('overlap');
    expect(result.violations[0].message).toContain('t0');
    expect(result.violations[0].message).toContain('t1');
  });

  it('accepts records that touch in memory or follow each other in time', () => {
    const plan = offsetsPlan(chain, [0, 16, 24, 88, 0]);
    expect(verifyPlan(chain, plan).valid).toBe(true);
  });

  it('rejects a wrong length, negative or fractional offsets, misalignment and a wrong footprint', () => {
    expect(kinds({ approach: 'offsets', offsets: [0, 64, 0, 64], footprint: 96 })).toEqual(['length']);
    expect(kinds({ approach: 'offsets', offsets: [0, -64, 0, 64, 0], footprint: 96 })).toContain('offset');
    expect(kinds({ approach: 'offsets', offsets: [0, 64.5, 0, 64, 0], footprint: 96 })).toContain('offset');
    expect(kinds({ approach: 'offsets', offsets: [...good], footprint: 95 })).toEqual(['footprint']);
    expect(kinds(offsetsPlan(chain, [0, 64, 0, 64, 0]), { alignment: 128 })).toEqual(['alignment', 'alignment']);
  });

  it('agrees with a brute-force pairwise check on random offsets', () => {
    fc.assert(
      fc.property(
        problems({ maxRecords: 14 }).chain((problem) =>
          fc.tuple(fc.constant(problem), fc.array(fc.integer({ min: 0, max: 300 }), { minLength: problem.records.length, maxLength: problem.records.length })),
        ),
        ([problem, offsets]) => {
          const result = verifyPlan(problem, offsetsPlan(problem, offsets));
          expect(result.valid).toBe(offsetsAreValid(problem, offsets));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('verifier on shared-objects plans', () => {
  const ids = TEST_VECTORS.chain.shared_objects.greedy_in_order.object_ids;

  it('accepts the published plan', () => {
    expect(verifyPlan(chain, sharedObjectsPlan([...ids], [64, 32]))).toEqual({ valid: true, violations: [], footprint: 96 });
  });

  it('rejects live records sharing an object', () => {
    expect(kinds(sharedObjectsPlan([0, 0, 1, 0, 1], [64, 64]))).toContain('shared-conflict');
  });

  it('rejects an object smaller than a record, a missing object, a wrong length and a wrong footprint', () => {
    expect(kinds(sharedObjectsPlan([...ids], [32, 32]))).toContain('object-size');
    expect(kinds(sharedObjectsPlan([0, 1, 0, 1, 2], [64, 32]))).toContain('object-id');
    expect(kinds(sharedObjectsPlan([0, 1, 0, 1], [64, 32]))).toEqual(['length']);
    expect(kinds({ approach: 'shared-objects', objectIds: [...ids], objectSizes: [64, 32], footprint: 100 })).toEqual(['footprint']);
  });

  it('checks object sizes against the alignment', () => {
    expect(kinds(sharedObjectsPlan([...ids], [64, 32]), { alignment: 64 })).toEqual(['alignment']);
  });
});

describe('verifier on optimality claims', () => {
  const problem = problemOf([
    [4, 0, 1],
    [6, 1, 2],
  ]);
  const plan = offsetsPlan(problem, [0, 4]);

  it('accepts a consistent claim and a plan that claims nothing', () => {
    expect(verifyPlan(problem, plan).valid).toBe(true);
    expect(verifyPlan(problem, { ...plan, optimal: true, bound: 10 }).valid).toBe(true);
    expect(verifyPlan(problem, { ...plan, optimal: false, bound: 8 }).valid).toBe(true);
    expect(verifyPlan(problem, { ...sharedObjectsPlan([0, 1], [4, 6]), optimal: true, bound: 10 }).valid).toBe(true);
  });

  it('rejects a bound above the footprint, optimal without meeting the bound, and malformed claims', () => {
    const messages = (claim: object): string[] =>
      verifyPlan(problem, { ...plan, ...claim })
        .violations.filter((v) => v.kind === 'claim')
        .map((v) => v.message);
    expect(messages({ optimal: false, bound: 11 })).toEqual(['the plan claims a lower bound of 11 bytes above its own footprint of 10.']);
    expect(messages({ optimal: true, bound: 9 })).toEqual(['the plan claims to be optimal with 10 bytes but proves only a bound of 9.']);
    expect(messages({ optimal: true })[0]).toMatch(/lower bound of undefined/);
    expect(messages({ optimal: 'yes', bound: 10 })[0]).toMatch(/not true or false/);
    expect(messages({ bound: -1 })[0]).toMatch(/whole number of bytes/);
  });
});
