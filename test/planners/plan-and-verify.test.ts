import { describe, expect, it } from 'vitest';
import { offsetsPlan } from '../../src/core/plans.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import type { OffsetsPlanner } from '../../src/planners/planner.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

const problem = problemOf(TEST_VECTORS.complex.records);

describe('plan and verify', () => {
  it('flags a planner that overlaps live tensors', () => {
    const everythingAtZero: OffsetsPlanner = {
      id: 'offsets/broken',
      approach: 'offsets',
      title: 'Broken',
      citation: 'test',
      complexity: 'n',
      plan: (p) =>
        offsetsPlan(
          p,
          p.records.map(() => 0),
        ),
    };
    const result = planAndVerify(everythingAtZero, problem);
    expect(result.valid).toBe(false);
    expect(result.violations[0].kind).toBe('overlap');
  });

  it('reports shared objects with their contiguous layout and the ratio to their bound', () => {
    const result = planAndVerify(findPlanner('shared-objects/min-cost-flow'), problem);
    expect(result.valid).toBe(true);
    expect(result.footprint).toBe(112);
    expect(result.ratioToLowerBound).toBe(1);
    expect(result.objects?.sizes).toEqual([32, 64, 8, 8]);
    // Objects of 32, 64, 8, 8 bytes start at 0, 32, 96, 104.
    expect(result.offsets).toEqual([0, 32, 96, 0, 104, 32, 104, 96, 0]);
  });
});
