import { UserError } from '../core/user-error.ts';

/** A command line that cannot be run as given (exit code 2, like bad input). */
export class UsageError extends UserError {
  /** The usage of the command that was given, printed before the sentence when known. */
  readonly usage?: string;

  constructor(message: string, usage?: string) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}
