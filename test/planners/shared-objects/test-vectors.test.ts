import { describe, expect, it } from 'vitest';
import { findPlanner } from '../../../src/planners/registry.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { problemOf } from '../../fixtures/problems.ts';
import { TEST_VECTORS } from '../../fixtures/test-vectors.ts';

const PLANNER_OF: Record<string, string> = {
  naive: 'shared-objects/naive',
  equality: 'shared-objects/equality',
  greedy_in_order: 'shared-objects/greedy-in-order',
  min_cost_flow: 'shared-objects/min-cost-flow',
  greedy_by_breadth: 'shared-objects/greedy-by-breadth',
  greedy_by_size_improved: 'shared-objects/greedy-by-size-improved',
};

describe.each(['chain', 'complex'] as const)('shared objects on the "%s" vector (TFLite tests)', (name) => {
  const vector = TEST_VECTORS[name];
  const problem = problemOf(vector.records);
  for (const [key, expected] of Object.entries(vector.shared_objects)) {
    it(`${PLANNER_OF[key]} gives total ${expected.total}${'object_ids' in expected ? ' and the same objects' : ''}`, () => {
      const result = planAndVerify(findPlanner(PLANNER_OF[key]), problem);
      expect(result.valid).toBe(true);
      expect(result.footprint).toBe(expected.total);
      expect(result.objects?.sizes).toEqual(expected.object_sizes);
      if ('object_ids' in expected) expect(result.objects?.ids).toEqual(expected.object_ids);
    });
  }
});

describe('shared objects on the paper example (Figures 1-2)', () => {
  const problem = problemOf(TEST_VECTORS.paper_example.records);
  it('naive needs 234 bytes and the paper strategies reach the bound of 128', () => {
    expect(planAndVerify(findPlanner('shared-objects/naive'), problem).footprint).toBe(TEST_VECTORS.paper_example.naive_total);
    for (const id of ['shared-objects/greedy-by-breadth', 'shared-objects/greedy-by-size', 'shared-objects/greedy-by-size-improved']) {
      expect(planAndVerify(findPlanner(id), problem).footprint).toBe(TEST_VECTORS.paper_example.shared_objects_lower_bound);
    }
  });
});
