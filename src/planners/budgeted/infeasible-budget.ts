import { UserError } from '../../core/user-error.ts';

/**
 * A budget a budgeted planner cannot meet: it names the layer (operator) that did not fit,
 * what it needed there, and the smallest budget that works for the same records (found by
 * bisection), so that the user can act on it. Bad input, not a bug: the command line
 * reports it as one sentence with exit code 2.
 */
export class InfeasibleBudgetError extends UserError {
  constructor(
    message: string,
    /** The operator whose records could not be placed. */
    readonly step: number,
    /** Ids of the records that did not fit there. */
    readonly records: readonly string[],
    /** The budget asked for (bytes). */
    readonly budget: number,
    /** The smallest budget the planner meets on these records (bytes); undefined when none was searched for. */
    readonly smallestBudget: number | undefined,
  ) {
    super(message);
    this.name = 'InfeasibleBudgetError';
  }
}

/** What a budget was split into before the planner got its buffer (budget-share.ts); absent where the planner had the whole budget. */
export interface BudgetLeft {
  readonly buffer: number;
  readonly io: number;
  readonly reserve: number;
}

/**
 * The one sentence of a budget that does not fit, for `plan --budget` and `exec --budget`
 * alike: who could not fit what, in which budget (and the buffer it left beside graph I/O and
 * the runtime's reserve), and the smallest budget that works.
 */
export function overBudget(failure: {
  readonly subject: string;
  readonly what: string;
  readonly budget: number;
  readonly left?: BudgetLeft;
  readonly smallest: number | undefined;
  readonly step: number;
  readonly records: readonly string[];
}): InfeasibleBudgetError {
  const { subject, what, budget, left, smallest } = failure;
  const leaves = left === undefined ? '' : `, which leaves a buffer of ${mibBytes(left.buffer)} beside graph I/O of ${mibBytes(left.io)} and the runtime's reserve of ${mibBytes(left.reserve)}`;
  const tail = smallest === undefined ? 'no budget below 2^52 bytes works' : `the smallest budget that works is ${mibBytes(smallest)} (memplan plan --find-min-budget)`;
  return new InfeasibleBudgetError(`${subject} ${what} in a budget of ${mibBytes(budget)}${leaves}; ${tail}.`, failure.step, failure.records, budget, smallest);
}

/** The records an operator could not place, the first three by name. */
export function unplaced(records: readonly string[]): string {
  return records.slice(0, 3).join(', ') + (records.length > 3 ? ` and ${records.length - 3} more` : '');
}

function mibBytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(3)} MiB (${bytes} bytes)`;
}
