import type { Problem } from './problem.ts';

/**
 * What an exact planner proves about its plan. Heuristics claim nothing and leave both
 * out; the verifier checks that a claim is consistent with the plan (it cannot re-prove
 * optimality: the tests compare exact planners with brute force on small problems).
 */
export interface OptimalityClaim {
  /** True when no valid plan has a smaller footprint (proven by the search, not hoped). */
  readonly optimal?: boolean;
  /** A proven lower bound on the footprint of every valid plan; equals the footprint when optimal. */
  readonly bound?: number;
}

/**
 * Shared Objects (paper, section 3): every record is assigned to one object; an
 * object holds records whose usage intervals are pairwise disjoint and is as large as
 * its largest record. Footprint: the sum of object sizes.
 */
export interface SharedObjectsPlan extends OptimalityClaim {
  readonly approach: 'shared-objects';
  /** `objectIds[i]` is the object that holds `problem.records[i]`. */
  readonly objectIds: readonly number[];
  readonly objectSizes: readonly number[];
  /** What the planner claims; the verifier recomputes it. */
  readonly footprint: number;
}

/**
 * Offset Calculation (paper, section 4): every record gets a byte offset in one
 * arena. Footprint: the arena size, the highest end of any record.
 */
export interface OffsetsPlan extends OptimalityClaim {
  readonly approach: 'offsets';
  /** `offsets[i]` is where `problem.records[i]` starts. */
  readonly offsets: readonly number[];
  readonly footprint: number;
  /**
   * Budgeted plans (FlexNN): `loadSteps[i]` is the operator at which record i's memory is
   * taken. A weight may be loaded ahead of its layer (from its `earliest` to its `first`)
   * and then occupies its memory from there through `last`; every other record's entry is
   * its `first`. Absent: every record occupies [first, last].
   */
  readonly loadSteps?: readonly number[];
}

export type Plan = SharedObjectsPlan | OffsetsPlan;
export type Approach = Plan['approach'];
export const APPROACHES: readonly Approach[] = ['shared-objects', 'offsets'];

/** The arena an offsets assignment needs: max over records of offset + size. */
export function arenaSize(problem: Problem, offsets: ArrayLike<number>): number {
  let top = 0;
  problem.records.forEach((record, i) => {
    top = Math.max(top, offsets[i] + record.size);
  });
  return top;
}

export function sharedObjectsPlan(objectIds: readonly number[], objectSizes: readonly number[]): SharedObjectsPlan {
  let footprint = 0;
  for (const size of objectSizes) footprint += size;
  return { approach: 'shared-objects', objectIds, objectSizes, footprint };
}

export function offsetsPlan(problem: Problem, offsets: ArrayLike<number>, loadSteps?: ArrayLike<number>): OffsetsPlan {
  const plan: OffsetsPlan = { approach: 'offsets', offsets: Array.from(offsets), footprint: arenaSize(problem, offsets) };
  return loadSteps === undefined ? plan : { ...plan, loadSteps: Array.from(loadSteps) };
}
