/**
 * A budget a budgeted planner cannot meet: it names the layer (operator) that did not fit,
 * what it needed there, and the smallest budget that works for the same records (found by
 * bisection), so that the user can act on it. Bad input, not a bug: the command line
 * reports it as one sentence with exit code 2.
 */
export class InfeasibleBudgetError extends Error {
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
