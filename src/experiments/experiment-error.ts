/** An experiment or study file that cannot be run as written: one sentence for the user. */
export class ExperimentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExperimentError';
  }
}
