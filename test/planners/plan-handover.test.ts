import { describe, expect, it } from 'vitest';
import { offsetsPlan } from '../../src/core/plans.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { acceptReceived, planOf, RefusedPlanError, runnablePlan, verifyReceived } from '../../src/planners/plan-handover.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { problemOf } from '../fixtures/problems.ts';
import { TEST_VECTORS } from '../fixtures/test-vectors.ts';

const problem = problemOf(TEST_VECTORS.complex.records);

describe('a plan handed to another process', () => {
  it('is verified where it arrives to the result the sender had, no planner run', () => {
    for (const id of ['offsets/greedy-by-size', 'shared-objects/greedy-by-size']) {
      const sent = planAndVerify(findPlanner(id), problem, { alignment: 8 });
      const received = verifyReceived({ planner: sent.planner, plan: planOf(sent) }, problem, 8);
      expect({ ...received, timeMs: sent.timeMs }).toEqual(sent);
      expect(received.timeMs).toBe(0);
    }
  });

  it('is refused in one sentence that names its planner, where, and what the verifier found', () => {
    const everythingAtZero = {
      planner: 'offsets/broken',
      plan: offsetsPlan(
        problem,
        problem.records.map(() => 0),
      ),
    };
    expect(verifyReceived(everythingAtZero, problem, 1).valid).toBe(false);
    expect(() => acceptReceived(everythingAtZero, problem, 1, 'in the measured process')).toThrow(RefusedPlanError);
    expect(() => acceptReceived(everythingAtZero, problem, 1, 'in the measured process')).toThrow(/^the plan of offsets\/broken fails the verifier in the measured process: records .+ share bytes/);
  });

  it('is held to the alignment the receiver needs', () => {
    const sent = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 1 });
    const misaligned = sent.offsets.some((offset) => offset % 64 !== 0);
    expect(misaligned).toBe(true);
    expect(verifyReceived({ planner: sent.planner, plan: planOf(sent) }, problem, 64).violations.some((v) => v.kind === 'alignment')).toBe(true);
  });

  it('runs as received, or planned here, either way verified', () => {
    const planner = findPlanner('offsets/greedy-by-size');
    const here = runnablePlan(planner, problem, 4);
    expect(runnablePlan({ planner: planner.id, plan: planOf(here) }, problem, 4).offsets).toEqual(here.offsets);
    expect(() =>
      runnablePlan(
        {
          planner: 'offsets/broken',
          plan: offsetsPlan(
            problem,
            problem.records.map(() => 0),
          ),
        },
        problem,
        4,
      ),
    ).toThrow(/fails the verifier where the job runs/);
  });
});
