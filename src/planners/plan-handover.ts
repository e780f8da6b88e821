import { checkAlignment } from '../core/alignment.ts';
import { lowerBounds } from '../core/bounds.ts';
import { sharedObjectsPlan, type Plan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import { planAndVerify, verifiedResult, type VerifiedResult } from './plan-and-verify.ts';
import type { Planner } from './planner.ts';

/**
 * A plan that crosses into another process (a measured process, an agent's job, a browser
 * page): the harness sends `planOf` its verified result, and the receiver, which plans
 * nothing, checks what it got with the verifier against the records it derives itself.
 */

/** The plan behind a verified result (a shared-objects result gives its objects, not their layout). */
export function planOf(result: VerifiedResult): Plan {
  const claim = { ...(result.optimal !== undefined ? { optimal: result.optimal } : {}), ...(result.bound !== undefined ? { bound: result.bound } : {}) };
  if (result.objects !== undefined) return { ...sharedObjectsPlan(result.objects.ids, result.objects.sizes), ...claim };
  return { approach: 'offsets', offsets: result.offsets, footprint: result.footprint, ...claim, ...(result.loadSteps !== undefined ? { loadSteps: result.loadSteps } : {}) };
}

/** A plan another process made, and who made it. */
export interface ReceivedPlan {
  /** The planner's id, as the sender names it. */
  readonly planner: string;
  readonly plan: Plan;
}

/** A received plan that fails the verifier: the receiver runs nothing with it. */
export class RefusedPlanError extends Error {
  override readonly name = 'RefusedPlanError';
}

/**
 * A received plan as the verifier finds it for `problem` (the records derived here, in the
 * sender's order), valid or not; no planner runs, so its time is 0. The budget is the
 * problem's own.
 */
export function verifyReceived(received: ReceivedPlan, problem: Problem, alignment: number): VerifiedResult {
  return verifiedResult(received.planner, received.plan, problem, { alignment: checkAlignment(alignment), budget: problem.budget, bounds: lowerBounds(problem), timeMs: 0 });
}

/**
 * The received plan, verified; refused in one sentence that names its planner, `where` it
 * was checked and the verifier's first objection when it is not valid.
 */
export function acceptReceived(received: ReceivedPlan, problem: Problem, alignment: number, where: string): VerifiedResult {
  const result = verifyReceived(received, problem, alignment);
  if (!result.valid) throw new RefusedPlanError(`the plan of ${received.planner} fails the verifier ${where}: ${result.violations[0]?.message}`);
  return result;
}

/**
 * The plan a run uses: made here by `source` and verified, or received and verified; either
 * way a plan that fails the verifier stops the run with one sentence.
 */
export function runnablePlan(source: Planner | ReceivedPlan, problem: Problem, alignment: number): VerifiedResult {
  if ('planner' in source) return acceptReceived(source, problem, alignment, 'where the job runs');
  const plan = planAndVerify(source, problem, { alignment });
  if (!plan.valid) throw new Error(`${source.id} produced an invalid plan: ${plan.violations[0]?.message}`);
  return plan;
}
