import { UserError } from '../core/user-error.ts';

/** A planner name or module path that names no planner: one sentence for the user. */
export class UnknownPlannerError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownPlannerError';
  }
}
