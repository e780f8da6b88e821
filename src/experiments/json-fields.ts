import { parseByteSize } from '../io/byte-size.ts';
import { ExperimentError } from './config.ts';

/**
 * Checks the fields of an experiment file's JSON: every failure is one ExperimentError
 * naming the file and the JSON path (`experiments/x.json: $.figure3.budgets[2]: ...`).
 */
export class JsonFields {
  constructor(readonly file: string) {}

  fail(path: string, problem: string): never {
    throw new ExperimentError(`${this.file}: ${path}: ${problem}`);
  }

  object(value: unknown, path: string): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(path, 'must be an object.');
    return value as Record<string, unknown>;
  }

  /** Fails on any key not in `allowed` (a typo would otherwise be ignored silently). */
  only(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) this.fail(path === '$' ? `$.${key}` : `${path}.${key}`, `unknown field; expected one of ${allowed.join(', ')}.`);
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string' || value.trim() === '') this.fail(path, 'must be a non-empty string.');
    return value as string;
  }

  integer(value: unknown, path: string, min = 0): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) this.fail(path, `must be a whole number >= ${min}.`);
    return value as number;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, 'must be true or false.');
    return value as boolean;
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value) || value.length === 0) this.fail(path, 'must be a non-empty array.');
    return value as unknown[];
  }

  /** A size in bytes: a whole number, or a string such as "4MiB". */
  bytes(value: unknown, path: string): number {
    if (typeof value !== 'number' && typeof value !== 'string') this.fail(path, 'must be a size: bytes, or a string such as "4MiB".');
    try {
      const bytes = parseByteSize(value as string | number);
      if (bytes < 1) this.fail(path, 'must be at least 1 byte.');
      return bytes;
    } catch (error) {
      if (error instanceof ExperimentError) throw error;
      return this.fail(path, (error as Error).message);
    }
  }

  /** One of the given values. */
  choice<T extends string>(value: unknown, path: string, choices: readonly T[]): T {
    if (!choices.includes(value as T)) this.fail(path, `must be one of ${choices.join(', ')}.`);
    return value as T;
  }

  /** The results folder's name. */
  name(value: unknown, path: string): string {
    const name = this.string(value, path);
    if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name)) this.fail(path, 'must be letters, digits, dots, dashes or underscores (it names a results folder).');
    return name;
  }
}
