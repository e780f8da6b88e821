import { describe, expect, it } from 'vitest';
import { objectsToOffsets } from '../../src/core/objects-to-offsets.ts';
import { sharedObjectsPlan } from '../../src/core/plans.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

describe('objects to offsets', () => {
  const vector = TEST_VECTORS.objects_to_offsets;
  // Records sized 1 so that every object is large enough; only the layout is under test.
  const problem = problemOf(vector.object_ids.map((_, i) => [1, i, i] as const));

  it('lays objects out contiguously in id order (published vector)', () => {
    const plan = objectsToOffsets(problem, sharedObjectsPlan([...vector.object_ids], [...vector.object_sizes]));
    expect(plan.offsets).toEqual(vector.offsets);
  });

  it('aligns each object start', () => {
    const plan = objectsToOffsets(problem, sharedObjectsPlan([...vector.object_ids], [...vector.object_sizes]), 16);
    for (const offset of plan.offsets) expect(offset % 16).toBe(0);
    // Objects 0..5 of sizes 16,8,32,32,4,16 start at 0,16,32,64,96,112.
    expect(plan.offsets).toEqual([32, 0, 32, 16, 64, 64, 16, 112]);
  });
});
