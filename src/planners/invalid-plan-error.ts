/** A plan that failed verification: a planner bug, never a result (exit code 1 on the command line). */
export class InvalidPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPlanError';
  }
}
