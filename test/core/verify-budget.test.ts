import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offsetsPlan, sharedObjectsPlan, type OffsetsPlan } from '../../src/core/plans.ts';
import { InvalidProblemError, makeProblem, type Problem } from '../../src/core/problem.ts';
import type { TensorUsageRecord } from '../../src/core/records.ts';
import { verifyPlan } from '../../src/core/verify.ts';

/**
 * A three-layer chain with a weight per layer (loadable from operator 0) and an im2col
 * buffer in layer 1:
 *   a0 [0,1] 100 B, a1 [1,2] 100 B, w1 [1,1] 60 B, w2 [2,2] 60 B, i1 [1,1] 40 B.
 */
const records: TensorUsageRecord[] = [
  { id: 'a0', size: 100, first: 0, last: 1 },
  { id: 'a1', size: 100, first: 1, last: 2 },
  { id: 'w1', size: 60, first: 1, last: 1, kind: 'weight', earliest: 0 },
  { id: 'w2', size: 60, first: 2, last: 2, kind: 'weight', earliest: 0 },
  { id: 'i1', size: 40, first: 1, last: 1, kind: 'scratch' },
];
const chain = makeProblem('chain', records, 3);
// At operator 1 a0, a1, w1 and i1 are live: 300 bytes side by side; w2 reuses a0's place.
const offsets = [0, 100, 200, 0, 260];

const kinds = (problem: Problem, plan: OffsetsPlan, budget?: number): string[] => verifyPlan(problem, plan, budget === undefined ? {} : { budget }).violations.map((v) => v.kind);

describe('verifier on budgeted problems', () => {
  it('accepts a plan that loads every weight at its layer (no load steps) and fits the budget exactly', () => {
    expect(verifyPlan({ ...chain, budget: 300 }, offsetsPlan(chain, offsets))).toEqual({ valid: true, violations: [], footprint: 300 });
  });

  it('rejects an arena over the budget, from the problem or from the options', () => {
    expect(kinds({ ...chain, budget: 299 }, offsetsPlan(chain, offsets))).toEqual(['budget']);
    expect(kinds(chain, offsetsPlan(chain, offsets), 299)).toEqual(['budget']);
    const shared = verifyPlan({ ...chain, budget: 100 }, sharedObjectsPlan([0, 1, 2, 0, 3], [100, 100, 60, 40]));
    expect(shared.violations.map((v) => v.kind)).toEqual(['budget']);
  });

  it('rejects a weight loaded after its layer starts: the layer would read it before it is loaded', () => {
    const late = offsetsPlan(chain, offsets, [0, 1, 1, 3, 1]);
    const result = verifyPlan(chain, late);
    expect(result.violations.map((v) => v.kind)).toEqual(['load-window']);
    expect(result.violations[0].message).toMatch(/w2 is loaded at operator 3, after its layer uses it at operator 2/);
  });

  it('rejects a weight loaded before its load window opens', () => {
    const early = makeProblem(
      'early',
      records.map((r) => (r.id === 'w2' ? { ...r, earliest: 1 } : r)),
      3,
    );
    expect(verifyPlan(early, offsetsPlan(early, [0, 100, 200, 200, 260], [0, 1, 1, 0, 1])).violations[0].message).toMatch(/w2 is loaded at operator 0, before its load window opens at operator 1/);
  });

  it('counts a preloaded weight as occupying its memory from its load step on', () => {
    // w2 over a0's bytes is fine when loaded at its layer, an overlap when loaded at operator 1 (a0 still live).
    expect(verifyPlan(chain, offsetsPlan(chain, offsets, [0, 1, 1, 2, 1])).valid).toBe(true);
    const result = verifyPlan(chain, offsetsPlan(chain, offsets, [0, 1, 1, 1, 1]));
    expect(result.violations.map((v) => v.kind)).toEqual(['overlap']);
    expect(result.violations[0].message).toMatch(/operators 0-1 and 1-2/);
    // Placed where nothing live at operator 1 lies, the same preload is fine.
    expect(verifyPlan(chain, offsetsPlan(chain, [0, 100, 200, 300, 260], [0, 1, 1, 1, 1])).valid).toBe(true);
  });

  it('rejects memory taken ahead for an activation or scratch (only weights are loaded ahead)', () => {
    expect(kinds(chain, offsetsPlan(chain, offsets, [0, 0, 1, 2, 1]))).toEqual(['load-window']);
    expect(kinds(chain, offsetsPlan(chain, offsets, [0, 1, 1, 2, 0]))).toEqual(['scratch']);
  });

  it('rejects scratch that lives outside its one operator, and load steps of the wrong count', () => {
    const spread: Problem = { name: 'spread', operatorCount: 3, records: [{ id: 'i', size: 8, first: 0, last: 1, kind: 'scratch' }] };
    expect(kinds(spread, offsetsPlan(spread, [0]))).toEqual(['scratch']);
    expect(kinds(chain, { ...offsetsPlan(chain, offsets), loadSteps: [0, 1] })).toEqual(['length']);
  });

  it('agrees with a brute-force check over residency intervals on random budgeted plans', () => {
    const problemAndPlan = fc
      .array(
        fc.record({ first: fc.integer({ min: 0, max: 10 }), length: fc.integer({ min: 0, max: 4 }), size: fc.integer({ min: 1, max: 50 }), kind: fc.constantFrom('activation', 'weight', 'scratch') }),
        { minLength: 1, maxLength: 12 },
      )
      .chain((drawn) => {
        const problem = makeProblem(
          'random',
          drawn.map(
            (r, i): TensorUsageRecord => ({
              id: `r${i}`,
              size: r.size,
              first: r.first,
              last: r.kind === 'activation' ? r.first + r.length : r.first,
              ...(r.kind === 'activation' ? {} : { kind: r.kind }),
            }),
          ),
        );
        const steps = problem.records.map((r) => (r.kind === 'weight' ? fc.integer({ min: 0, max: r.first }) : fc.constant(r.first)));
        return fc.tuple(fc.constant(problem), fc.array(fc.integer({ min: 0, max: 200 }), { minLength: problem.records.length, maxLength: problem.records.length }), fc.tuple(...steps));
      });
    fc.assert(
      fc.property(problemAndPlan, ([problem, given, loadSteps]) => {
        const { records: rs } = problem;
        let valid = true;
        for (let i = 0; i < rs.length; i++) {
          for (let j = i + 1; j < rs.length; j++) {
            const live = !(rs[i].last < loadSteps[j] || rs[j].last < loadSteps[i]);
            const overlap = given[i] < given[j] + rs[j].size && given[j] < given[i] + rs[i].size;
            if (live && overlap) valid = false;
          }
        }
        expect(verifyPlan(problem, offsetsPlan(problem, given, loadSteps)).valid).toBe(valid);
      }),
      { numRuns: 400 },
    );
  });
});

describe('budgeted problems', () => {
  it('reject a bad kind, a load window on a non-weight or past the layer, multi-operator scratch and a bad budget', () => {
    const make = (record: Partial<TensorUsageRecord>, budget?: number) => () =>
      makeProblem('p', [{ id: 'x', size: 1, first: 2, last: 2, ...record } as TensorUsageRecord], 3, budget === undefined ? {} : { budget });
    expect(make({ kind: 'bias' as never })).toThrow(/kinds are activation, weight, scratch/);
    expect(make({ earliest: 0 })).toThrow(/is no weight/);
    expect(make({ kind: 'weight', earliest: 3 })).toThrow(/earliest load step 3/);
    expect(make({ kind: 'scratch', first: 1 })).toThrow(/lives inside one operator/);
    expect(make({}, -1)).toThrow(InvalidProblemError);
    expect(make({ kind: 'weight', earliest: 1 }, 10)().budget).toBe(10);
  });
});
