import { UserError } from '../core/user-error.ts';

/** A network or plan a backend cannot run as asked (no kernel for an op, no device): user-facing. */
export class BackendError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'BackendError';
  }
}
