import { describe, expect, it } from 'vitest';
import { findPlanner } from '../../../src/planners/registry.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { problemOf } from '../../fixtures/problems.ts';
import { TEST_VECTORS } from '../../fixtures/test-vectors.ts';

const greedyBySize = findPlanner('offsets/greedy-by-size');

describe('offsets/greedy-by-size against the published vectors', () => {
  it.each([
    ['chain', TEST_VECTORS.chain.records, TEST_VECTORS.chain.offsets.greedy_by_size, 1],
    ['chain, align 128', TEST_VECTORS.chain.records, TEST_VECTORS.chain.offsets.greedy_by_size_align_128, 128],
    ['complex', TEST_VECTORS.complex.records, TEST_VECTORS.complex.offsets.greedy_by_size, 1],
    ['micro greedy 1', TEST_VECTORS.micro_greedy[0].records, TEST_VECTORS.micro_greedy[0], 1],
  ] as const)('%s', (_, records, expected, alignment) => {
    const result = planAndVerify(greedyBySize, problemOf(records), { alignment });
    expect(result.valid).toBe(true);
    expect(result.offsets).toEqual(expected.offsets);
    expect(result.footprint).toBe(expected.total);
  });

  it('micro greedy 2 (total only)', () => {
    const vector = TEST_VECTORS.micro_greedy[1];
    expect(planAndVerify(greedyBySize, problemOf(vector.records)).footprint).toBe(vector.total);
  });

  it('meets the offsets lower bound on the paper example (124)', () => {
    const problem = problemOf(TEST_VECTORS.paper_example.records);
    expect(planAndVerify(greedyBySize, problem).footprint).toBe(TEST_VECTORS.paper_example.offsets_greedy_by_size_total);
  });
});
