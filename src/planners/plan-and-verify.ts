import { checkAlignment } from '../core/alignment.ts';
import { lowerBounds, type LowerBounds } from '../core/bounds.ts';
import { objectsToOffsets } from '../core/objects-to-offsets.ts';
import type { Approach, Plan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import { verifyPlan, type Violation } from '../core/verify.ts';
import type { Planner } from './planner.ts';

/** A planner's plan after the independent verifier has seen it: the only thing reported. */
export interface VerifiedResult {
  readonly planner: string;
  readonly approach: Approach;
  /** Recomputed by the verifier (bytes): sum of objects, or arena size. */
  readonly footprint: number;
  /** Footprint over the lower bound of the planner's own approach. */
  readonly ratioToLowerBound: number;
  readonly valid: boolean;
  readonly violations: readonly Violation[];
  /** Wall time of the planner alone, verification excluded. */
  readonly timeMs: number;
  /** Per record, in input order; for shared objects, the objects laid out contiguously. */
  readonly offsets: readonly number[];
  /** Shared objects only. */
  readonly objects?: { readonly ids: readonly number[]; readonly sizes: readonly number[] };
  /** Exact planners only: proven optimal or not (consistency checked by the verifier). */
  readonly optimal?: boolean;
  /** Exact planners only: the lower bound their search proved (bytes). */
  readonly bound?: number;
  /** Budgeted plans only: the operator at which each record's memory is taken (OffsetsPlan.loadSteps). */
  readonly loadSteps?: readonly number[];
}

export interface PlanOptions {
  readonly alignment?: number;
  /** Search planners: their time limit (ms) and seed (see PlannerOptions). */
  readonly timeLimitMs?: number;
  readonly seed?: number;
  /** The tie-order study's seed (PlannerOptions.tieSeed); absent: TFLite's tie order. */
  readonly tieSeed?: number;
  /** Pass when already computed for this problem. */
  readonly bounds?: LowerBounds;
  /** Bytes the plan must fit in (PlannerOptions.budget); verified. Default: the problem's own budget. */
  readonly budget?: number;
  /** Budgeted planners: whether an infeasible budget's error names the smallest that works (PlannerOptions.findSmallestBudget). */
  readonly findSmallestBudget?: boolean;
}

export function planAndVerify(planner: Planner, problem: Problem, options: PlanOptions = {}): VerifiedResult {
  const alignment = checkAlignment(options.alignment);
  const bounds = options.bounds ?? lowerBounds(problem);
  const started = performance.now();
  const budget = options.budget ?? problem.budget;
  const plan = planner.plan(problem, {
    alignment,
    timeLimitMs: options.timeLimitMs,
    seed: options.seed,
    tieSeed: options.tieSeed,
    ...(budget !== undefined ? { budget } : {}),
    findSmallestBudget: options.findSmallestBudget,
  });
  const timeMs = performance.now() - started;
  return verifiedResult(planner.id, plan, problem, { alignment, budget, bounds, timeMs });
}

/**
 * A plan as the verifier finds it for `problem`, named after the planner that made it (here
 * or elsewhere): its footprint recomputed, its ratio to the bound of its approach, and for
 * shared objects their contiguous layout, which is reported too and so verified too.
 */
export function verifiedResult(
  planner: string,
  plan: Plan,
  problem: Problem,
  context: { readonly alignment: number; readonly budget: number | undefined; readonly bounds: LowerBounds; readonly timeMs: number },
): VerifiedResult {
  const { alignment, budget, bounds, timeMs } = context;
  const verification = verifyPlan(problem, plan, { alignment, budget });
  const bound = plan.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
  const ratio = (footprint: number): number => (bound === 0 ? (footprint === 0 ? 1 : Infinity) : footprint / bound);
  const claim = { ...(plan.optimal !== undefined ? { optimal: plan.optimal } : {}), ...(plan.bound !== undefined ? { bound: plan.bound } : {}) };
  if (plan.approach === 'offsets') {
    return {
      planner,
      approach: plan.approach,
      footprint: verification.footprint,
      ratioToLowerBound: ratio(verification.footprint),
      valid: verification.valid,
      violations: verification.violations,
      timeMs,
      offsets: plan.offsets,
      ...claim,
      ...(plan.loadSteps !== undefined ? { loadSteps: plan.loadSteps } : {}),
    };
  }
  const layout = objectsToOffsets(problem, plan, alignment);
  const layoutCheck = verifyPlan(problem, layout, { alignment, budget });
  return {
    planner,
    approach: plan.approach,
    footprint: verification.footprint,
    ratioToLowerBound: ratio(verification.footprint),
    valid: verification.valid && layoutCheck.valid,
    violations: [...verification.violations, ...layoutCheck.violations],
    timeMs,
    offsets: layout.offsets,
    objects: { ids: plan.objectIds, sizes: plan.objectSizes },
    ...claim,
  };
}
