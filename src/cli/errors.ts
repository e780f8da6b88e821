/** A command line that cannot be run as given (exit code 2, like bad input). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
