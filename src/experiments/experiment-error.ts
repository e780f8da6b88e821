import { UserError } from '../core/user-error.ts';

/** An experiment or study file that cannot be run as written: one sentence for the user. */
export class ExperimentError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'ExperimentError';
  }
}
