import { alignUp, checkAlignment } from '../core/alignment.ts';
import type { OffsetsPlan, SharedObjectsPlan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';

export interface PlannerOptions {
  /** Bytes; offsets (and shared-object sizes) become multiples of it. Default 1. */
  readonly alignment?: number;
}

/** Worst-case growth of planning time in the number of records, as the code runs. */
export type Complexity = 'n' | 'n log n' | 'n^2' | 'n^3';

interface PlannerInfo {
  /** Stable id, `<approach>/<name>` (DESIGN.md). */
  readonly id: string;
  readonly title: string;
  /** Where the strategy comes from. */
  readonly citation: string;
  readonly complexity: Complexity;
  /**
   * The largest problem (records) it plans in reasonable time and memory on a laptop;
   * callers skip it, or refuse, above this. Absent: no limit.
   */
  readonly maxRecords?: number;
}

/** Why a planner will not take this problem, or undefined when it will. */
export function beyondLimit(planner: Planner, records: number): string | undefined {
  if (planner.maxRecords === undefined || records <= planner.maxRecords) return undefined;
  return `${planner.id} plans at most ${planner.maxRecords} records (it is O(${planner.complexity})); this problem has ${records}.`;
}

export interface SharedObjectsPlanner extends PlannerInfo {
  readonly approach: 'shared-objects';
  plan(problem: Problem, options?: PlannerOptions): SharedObjectsPlan;
}

export interface OffsetsPlanner extends PlannerInfo {
  readonly approach: 'offsets';
  plan(problem: Problem, options?: PlannerOptions): OffsetsPlan;
}

export type Planner = SharedObjectsPlanner | OffsetsPlanner;

/**
 * Shared objects are allocated whole, so alignment applies to their sizes: the
 * strategies plan over record sizes rounded up to the alignment (the paper's records
 * already carry "the aligned size").
 */
export function withAlignedSizes(problem: Problem, options: PlannerOptions | undefined): Problem {
  const alignment = checkAlignment(options?.alignment);
  if (alignment === 1) return problem;
  return { ...problem, records: problem.records.map((r) => ({ ...r, size: alignUp(r.size, alignment) })) };
}
