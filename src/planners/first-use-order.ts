import type { Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';

export interface ObjectAssignment {
  readonly objectIds: number[];
  readonly objectSizes: number[];
}

/**
 * TFLite's in-order strategies (equality, greedy in order, min-cost flow) walk the
 * records in order of first use and silently build conflicting objects when handed
 * any other order. This runs such a strategy on the records sorted by first use
 * (stable, so equal firsts keep input order) and returns the object of each record in
 * the caller's order.
 */
export function inFirstUseOrder(
  problem: Problem,
  assign: (sorted: readonly TensorUsageRecord[]) => ObjectAssignment,
): ObjectAssignment {
  const order = problem.records.map((_, i) => i).sort((a, b) => problem.records[a].first - problem.records[b].first);
  const sorted = assign(order.map((i) => problem.records[i]));
  const objectIds = new Array<number>(order.length);
  order.forEach((original, position) => {
    objectIds[original] = sorted.objectIds[position];
  });
  return { objectIds, objectSizes: sorted.objectSizes };
}

/** Indices of `records` in non-increasing size, ties in index order. */
export function bySizeDescending(records: readonly TensorUsageRecord[]): number[] {
  return records.map((_, i) => i).sort((a, b) => records[b].size - records[a].size);
}
