import { printable } from './printable.ts';
import { UserError } from '../core/user-error.ts';

/**
 * Bad input from a user's file: one sentence naming the file, the line where it
 * applies, and what is wrong. The command line prints it and exits with code 2.
 */
export class InputError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${printable(problem, Infinity)}`);
    this.name = 'InputError';
  }
}

/** Parses a whole decimal number, or says why it is not one. */
export function parseWholeNumber(text: string, what: string, fail: (problem: string) => never): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) fail(`${what} "${text}" is not a whole number.`);
  // Number('-0') is -0, which passes every `< 0` test and prints as 0: refuse the sign
  // rather than read a value other than the one written.
  if (/^-0+$/.test(trimmed)) fail(`${what} ${trimmed} is a negative zero; write 0.`);
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) fail(`${what} ${trimmed} is over 2^53 - 1, the largest exact number here.`);
  return value;
}
