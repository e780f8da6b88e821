/**
 * memplan-bench as a package (`import { ... } from 'memplan-bench'`): what a planner of your
 * own is written against (the records it receives, the plans it returns, the alignment
 * helpers), the verifier every plan passes, plan-and-verify, the lower bounds, the built-in
 * strategies, and the experiment runner. Everything else is the command's and may change.
 */
export { alignUp, checkAlignment } from './core/alignment.ts';
export { lowerBounds, type LowerBounds } from './core/bounds.ts';
export { APPROACHES, arenaSize, offsetsPlan, sharedObjectsPlan, type Approach, type OffsetsPlan, type OptimalityClaim, type Plan, type SharedObjectsPlan } from './core/plans.ts';
export { InvalidProblemError, makeProblem, naiveFootprint, type Problem } from './core/problem.ts';
export { conflicts, lifetime, RECORD_KINDS, recordKind, type RecordKind, type TensorUsageRecord } from './core/records.ts';
export { verifyPlan, type Verification, type VerifyOptions, type Violation } from './core/verify.ts';
export { planAndVerify, type PlanOptions, type VerifiedResult } from './planners/plan-and-verify.ts';
export type { Complexity, OffsetsPlanner, Planner, PlannerOptions, SharedObjectsPlanner } from './planners/planner.ts';
export { BUDGETED_PLANNERS, findPlanner, PLANNERS, plannersOf } from './planners/registry.ts';
export { UnknownPlannerError } from './planners/unknown-planner-error.ts';
export { loadExperiment, type Experiment } from './experiments/config.ts';
export { ExperimentError } from './experiments/experiment-error.ts';
export { runExperiment, type RunOptions, type RunOutcome } from './experiments/runner.ts';
