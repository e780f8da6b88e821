import type { TensorUsageRecord } from './records.ts';

/**
 * What a planner solves: usage records over `operatorCount` operators run in a fixed
 * order. Planners return their results in the order of `records`.
 */
export interface Problem {
  readonly name: string;
  readonly records: readonly TensorUsageRecord[];
  readonly operatorCount: number;
}

/** A problem that breaks the invariants every planner relies on. */
export class InvalidProblemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidProblemError';
  }
}

/**
 * Checks the invariants and builds a Problem. `operatorCount` defaults to one past
 * the last operator any record uses. Readers of files report errors with file and
 * line before this; this check guards the library API.
 */
export function makeProblem(
  name: string,
  records: readonly TensorUsageRecord[],
  operatorCount?: number,
): Problem {
  const seen = new Set<string>();
  let lastOperator = -1;
  records.forEach((record, index) => {
    const where = `record ${index} (id ${JSON.stringify(record.id)})`;
    if (seen.has(record.id)) throw new InvalidProblemError(`${where} repeats an id.`);
    seen.add(record.id);
    if (!Number.isSafeInteger(record.size) || record.size < 0) {
      throw new InvalidProblemError(`${where} has size ${record.size}; sizes are whole numbers of bytes from 0 to 2^53 - 1.`);
    }
    if (!Number.isSafeInteger(record.first) || record.first < 0) {
      throw new InvalidProblemError(`${where} has first operator ${record.first}; it must be a whole number >= 0.`);
    }
    if (!Number.isSafeInteger(record.last) || record.last < record.first) {
      throw new InvalidProblemError(`${where} has last operator ${record.last}; it must be a whole number >= first (${record.first}).`);
    }
    lastOperator = Math.max(lastOperator, record.last);
  });
  const count = operatorCount ?? lastOperator + 1;
  if (!Number.isSafeInteger(count) || count <= lastOperator) {
    throw new InvalidProblemError(`operator count ${count} is too small: a record uses operator ${lastOperator}.`);
  }
  return { name, records, operatorCount: count };
}

/** Sum of all record sizes: the footprint when nothing is shared. */
export function naiveFootprint(problem: Problem): number {
  let total = 0;
  for (const record of problem.records) total += record.size;
  return total;
}
