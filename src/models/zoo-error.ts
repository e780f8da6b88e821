import { UserError } from '../core/user-error.ts';

/** A zoo source that names no model or a parameter it does not take: one sentence for the user. */
export class ZooError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'ZooError';
  }
}
