import { alignUp } from './alignment.ts';
import { RECORD_KINDS, type TensorUsageRecord } from './records.ts';
import { UserError } from './user-error.ts';

/**
 * What a planner solves: usage records over `operatorCount` operators run in a fixed
 * order. Planners return their results in the order of `records`.
 */
export interface Problem {
  readonly name: string;
  readonly records: readonly TensorUsageRecord[];
  readonly operatorCount: number;
  /**
   * Bytes every plan must fit in (FlexNN's memory budget): the verifier rejects an arena
   * (or a sum of objects) above it. Absent: no budget.
   */
  readonly budget?: number;
}

/** A problem that breaks the invariants every planner relies on. */
export class InvalidProblemError extends UserError {
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
export function makeProblem(name: string, records: readonly TensorUsageRecord[], operatorCount?: number, options: { readonly budget?: number } = {}): Problem {
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
    checkKind(record, where);
    lastOperator = Math.max(lastOperator, record.last);
  });
  const past = recordPastTotal(records);
  if (past !== undefined) {
    throw new InvalidProblemError(
      `problem ${JSON.stringify(name)}: record ${past} (id ${JSON.stringify(records[past].id)}) brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.`,
    );
  }
  const count = operatorCount ?? lastOperator + 1;
  if (!Number.isSafeInteger(count) || count <= lastOperator) {
    throw new InvalidProblemError(`operator count ${count} is too small: a record uses operator ${lastOperator}.`);
  }
  const { budget } = options;
  if (budget !== undefined && (!Number.isSafeInteger(budget) || budget < 0)) {
    throw new InvalidProblemError(`the budget of ${budget} bytes is not a whole number of bytes from 0 to 2^53 - 1.`);
  }
  return budget === undefined ? { name, records, operatorCount: count } : { name, records, operatorCount: count, budget };
}

/** A record's kind and load window: weights may start loading at `earliest` <= first; scratch lives in one operator. */
function checkKind(record: TensorUsageRecord, where: string): void {
  if (record.kind !== undefined && !RECORD_KINDS.includes(record.kind)) {
    throw new InvalidProblemError(`${where} has kind ${JSON.stringify(record.kind)}; kinds are ${RECORD_KINDS.join(', ')}.`);
  }
  if (record.earliest !== undefined) {
    if (record.kind !== 'weight') throw new InvalidProblemError(`${where} has a load window (earliest ${record.earliest}) but is no weight; only weights are loaded ahead.`);
    if (!Number.isSafeInteger(record.earliest) || record.earliest < 0 || record.earliest > record.first) {
      throw new InvalidProblemError(`${where} has earliest load step ${record.earliest}; it must be a whole number from 0 to its first operator (${record.first}).`);
    }
  }
  if (record.kind === 'scratch' && record.first !== record.last) {
    throw new InvalidProblemError(`${where} is scratch over operators ${record.first}-${record.last}; scratch lives inside one operator.`);
  }
}

/**
 * The index of the record whose size, added to those before it (each rounded up to
 * `alignment`), takes the sum past 2^53 - 1; undefined when the sum stays below 2^53.
 * No plan needs more than that sum, so below it every offset, end and footprint is an
 * exact integer; past it the planners' arithmetic rounds and no plan can be trusted. The
 * running sum of non-negative doubles never falls back, so the first excess is found.
 */
export function recordPastTotal(records: readonly TensorUsageRecord[], alignment = 1): number | undefined {
  let total = 0;
  for (let index = 0; index < records.length; index++) {
    total += alignUp(records[index].size, alignment);
    if (total > Number.MAX_SAFE_INTEGER) return index;
  }
  return undefined;
}

/** Sum of all record sizes: the footprint when nothing is shared. */
export function naiveFootprint(problem: Problem): number {
  let total = 0;
  for (const record of problem.records) total += record.size;
  return total;
}
