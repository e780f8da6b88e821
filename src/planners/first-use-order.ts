import type { Plan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import type { PlannerOptions } from './planner.ts';

export interface ObjectAssignment {
  readonly objectIds: number[];
  readonly objectSizes: number[];
}

/** Record indices stably sorted by first use: position k holds the k-th record to be used. */
function firstUseOrder(records: readonly TensorUsageRecord[]): number[] {
  return records.map((_, i) => i).sort((a, b) => records[a].first - records[b].first);
}

/**
 * The records as a planner that `ordersByFirstUse` sees them: stably sorted by first use,
 * each its first use, last use and size, as one string (equal strings, equal plans).
 */
export function firstUseSequence(problem: Problem): string {
  return firstUseOrder(problem.records)
    .map((i) => {
      const { first, last, size } = problem.records[i];
      return `${first},${last},${size}`;
    })
    .join(';');
}

/**
 * TFLite's in-order strategies (equality, greedy in order, min-cost flow) walk the
 * records in order of first use and silently build conflicting objects when handed
 * any other order. This runs such a strategy on the records sorted by first use
 * (stable, so equal firsts keep input order) and returns the object of each record in
 * the caller's order.
 */
export function inFirstUseOrder(problem: Problem, assign: (sorted: readonly TensorUsageRecord[]) => ObjectAssignment): ObjectAssignment {
  const order = firstUseOrder(problem.records);
  const sorted = assign(order.map((i) => problem.records[i]));
  const objectIds = new Array<number>(order.length);
  order.forEach((original, position) => {
    objectIds[original] = sorted.objectIds[position];
  });
  return { objectIds, objectSizes: sorted.objectSizes };
}

/**
 * The record order in which a strategy of the paper or TFLite breaks its ties (equal
 * sizes, breadths, gaps: the lower record index wins). TFLite builds its usage records in
 * order of first use, so by default (`recordOrder: 'first-use'`) the strategy plans the
 * records stably sorted by first use and the plan is mapped back to the caller's order:
 * a record file gets the totals the authors' code gives on its rows sorted by first use.
 * With a `tieSeed` (the tie-order study) it plans the problem's own order, which the study
 * shuffles.
 */
export function inTieOrder<P extends Plan>(problem: Problem, options: PlannerOptions | undefined, plan: (ordered: Problem) => P): P {
  if (options?.tieSeed !== undefined) return plan(problem);
  const order = firstUseOrder(problem.records);
  if (order.every((original, position) => original === position)) return plan(problem);
  const sorted = plan({ ...problem, records: order.map((i) => problem.records[i]) });
  const back = <T>(values: readonly T[]): T[] => {
    const result = new Array<T>(order.length);
    order.forEach((original, position) => {
      result[original] = values[position];
    });
    return result;
  };
  return (sorted.approach === 'offsets' ? { ...sorted, offsets: back(sorted.offsets) } : { ...sorted, objectIds: back(sorted.objectIds) }) as P;
}

/** Indices of `records` in non-increasing size, ties in index order. */
export function bySizeDescending(records: readonly TensorUsageRecord[]): number[] {
  return records.map((_, i) => i).sort((a, b) => records[b].size - records[a].size);
}
