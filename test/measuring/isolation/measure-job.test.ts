import { describe, expect, it } from 'vitest';
import { jobNetwork, measure } from '../../../src/measuring/isolation/measure-job.ts';
import { withoutWeights } from '../../../src/backends/run-data.ts';
import { offsetsPlan } from '../../../src/core/plans.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { planOf, RefusedPlanError } from '../../../src/planners/plan-handover.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { interleavedBranches } from '../../fixtures/graphs.ts';

describe('the measured process and the plan it receives', () => {
  const records = { elementSize: 4, scratch: true };
  const { problem } = plannedProblem(interleavedBranches(), records);
  const job = (planner: string, plan: ReturnType<typeof planOf>) => ({
    graph: withoutWeights(interleavedBranches()),
    seededWeights: 1,
    records,
    planner,
    plan,
    alignment: 4,
    backend: 'cpu',
    warmup: 0,
    repetitions: 0,
    seed: 1,
  });

  it('checks the plan with the verifier and runs it as sent', () => {
    const sent = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 });
    const { plan } = jobNetwork(job(sent.planner, planOf(sent)));
    expect(plan.valid).toBe(true);
    expect(plan.planner).toBe('offsets/greedy-by-size');
    expect(plan.offsets).toEqual(sent.offsets);
    expect(plan.footprint).toBe(sent.footprint);
  });

  it('refuses a plan that fails the verifier, in one sentence', () => {
    const overlapping = offsetsPlan(
      problem,
      problem.records.map(() => 0),
    );
    expect(() => jobNetwork(job('offsets/zero', overlapping))).toThrow(RefusedPlanError);
    expect(() => jobNetwork(job('offsets/zero', overlapping))).toThrow(/^the plan of offsets\/zero fails the verifier in the measured process: [^\n]+\.$/);
  });

  it('collects the young generation after each inference, and the whole heap not once an inference leaves nothing', async () => {
    const sent = planOf(planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 }));
    const calls = async (repetitions: number) => {
      const counts = { whole: 0, young: 0 };
      const context = { baselineRss: 0, runtimeRss: 0, collect: () => void counts.whole++, collectYoung: () => void counts.young++ };
      const result = await measure({ ...job('offsets/greedy-by-size', sent), warmup: 2, repetitions }, context);
      expect(result.samples).toHaveLength(repetitions);
      return counts;
    };
    const [few, many] = [await calls(3), await calls(23)];
    expect(many.young - few.young).toBe(20);
    expect(many.whole).toBe(few.whole);
  });
});
