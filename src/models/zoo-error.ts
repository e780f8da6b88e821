/** A zoo source that names no model or a parameter it does not take: one sentence for the user. */
export class ZooError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZooError';
  }
}
