import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBounds, positionalMaxima } from '../../src/core/bounds.ts';
import { operatorProfiles } from '../../src/core/profiles.ts';
import { problems } from '../fixtures/arbitraries.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

describe('positional maxima', () => {
  it('match the published vectors', () => {
    expect(positionalMaxima(problemOf(TEST_VECTORS.chain.records))).toEqual(TEST_VECTORS.chain.positional_maxima);
    expect(positionalMaxima(problemOf(TEST_VECTORS.complex.records))).toEqual(TEST_VECTORS.complex.positional_maxima);
    expect(positionalMaxima(problemOf(TEST_VECTORS.paper_example.records))[2]).toBe(TEST_VECTORS.paper_example.third_positional_maximum);
  });

  it('equal the definition: the largest i-th entry over sorted operator profiles', () => {
    fc.assert(
      fc.property(problems(), (problem) => {
        const expected: number[] = [];
        for (const profile of operatorProfiles(problem)) {
          profile.forEach((record, i) => {
            expected[i] = Math.max(expected[i] ?? 0, problem.records[record].size);
          });
        }
        expect(positionalMaxima(problem)).toEqual(expected);
      }),
    );
  });

  it('do not depend on how sparse time is', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), (seed) => {
        const dense = fc.sample(problems(), { seed, numRuns: 1 })[0];
        const sparse = fc.sample(problems({ sparse: true }), { seed, numRuns: 1 })[0];
        expect(positionalMaxima(sparse)).toEqual(positionalMaxima(dense));
      }),
      { numRuns: 30 },
    );
  });
});

describe('lower bounds', () => {
  it('are those of the paper example (offsets 124, shared objects 128)', () => {
    const bounds = lowerBounds(problemOf(TEST_VECTORS.paper_example.records));
    expect(bounds.offsets).toBe(TEST_VECTORS.paper_example.offsets_lower_bound);
    expect(bounds.sharedObjects).toBe(TEST_VECTORS.paper_example.shared_objects_lower_bound);
  });

  it('the offsets bound never exceeds the shared-objects bound', () => {
    fc.assert(
      fc.property(problems(), (problem) => {
        const bounds = lowerBounds(problem);
        expect(bounds.offsets).toBeLessThanOrEqual(bounds.sharedObjects);
      }),
    );
  });

  it('are zero for an empty problem', () => {
    expect(lowerBounds(problemOf([]))).toEqual({ offsets: 0, sharedObjects: 0 });
  });
});
