import { sharedObjectsPlan, type Plan } from '../core/plans.ts';
import type { VerifiedResult } from './plan-and-verify.ts';
import type { Planner } from './planner.ts';

/**
 * A planner that returns a plan made elsewhere (by the harness, before it crossed into
 * another process): running it through planAndVerify there verifies the plan again where
 * it is used. The plan must be for the same records in the same order.
 */
export function fixedPlanner(id: string, plan: Plan, citation = 'a plan made elsewhere'): Planner {
  const info = { id, title: id, citation, complexity: 'n' as const };
  return plan.approach === 'offsets' ? { ...info, approach: 'offsets', plan: () => plan } : { ...info, approach: 'shared-objects', plan: () => plan };
}

/** The plan behind a verified result (a shared-objects result gives its objects, not their layout). */
export function planOf(result: VerifiedResult): Plan {
  const claim = { ...(result.optimal !== undefined ? { optimal: result.optimal } : {}), ...(result.bound !== undefined ? { bound: result.bound } : {}) };
  if (result.objects !== undefined) return { ...sharedObjectsPlan(result.objects.ids, result.objects.sizes), ...claim };
  return { approach: 'offsets', offsets: result.offsets, footprint: result.footprint, ...claim, ...(result.loadSteps !== undefined ? { loadSteps: result.loadSteps } : {}) };
}
