import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxOperatorBreadth, operatorBreadths, operatorProfile, operatorProfiles, startOperators } from '../../src/core/profiles.ts';
import { problems } from '../fixtures/arbitraries.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

describe('operator profiles', () => {
  it('match the published vector, largest first, ties in record order', () => {
    const problem = problemOf(TEST_VECTORS.complex.records);
    expect(operatorProfiles(problem)).toEqual(TEST_VECTORS.complex.operator_profiles_by_record_index);
    TEST_VECTORS.complex.operator_profiles_by_record_index.forEach((profile, op) => {
      expect(operatorProfile(problem, op)).toEqual(profile);
    });
  });

  it('give the breadth of operator 3 in the paper example (80)', () => {
    const problem = problemOf(TEST_VECTORS.paper_example.records);
    expect(operatorBreadths(problem)[3]).toBe(TEST_VECTORS.paper_example.operator_3_breadth);
  });

  it('breadths are the sums of the profiles, and starts carry the maximum', () => {
    fc.assert(
      fc.property(problems(), (problem) => {
        const breadths = operatorBreadths(problem);
        operatorProfiles(problem).forEach((profile, op) => {
          expect(breadths[op]).toBe(profile.reduce((sum, r) => sum + problem.records[r].size, 0));
        });
        const starts = startOperators(problem);
        starts.operators.forEach((op, k) => expect(starts.breadths[k]).toBe(breadths[op]));
        expect(maxOperatorBreadth(problem)).toBe(breadths.length === 0 ? 0 : Math.max(0, ...breadths));
      }),
    );
  });
});
