/**
 * What the user gave (a file, a source, a planner, a budget, a command line) cannot be run
 * as given. The message is one sentence that says what and where; the command prints it
 * with exit code 2 and no stack trace. Each layer's own kind extends it (InputError,
 * GraphError, BackendError, ...), so that the command line knows them all by this one class
 * and loads none of their modules to tell them apart.
 */
export class UserError extends Error {}
