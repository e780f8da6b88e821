import { recordPastTotal, type Problem } from '../core/problem.ts';
import { InputError } from '../io/input-error.ts';
import { UsageError } from './errors.ts';

/**
 * `--align N` of every command that plans: N bytes, a power of two from 1 to 2^52. Memory
 * systems align to powers of two (cache lines, SIMD vectors, a GPU's storage offset
 * alignment), and 2^52 is the largest one below 2^53, where byte counts stop being exact.
 * yargs reads the option as a number, so NaN (`--align abc`), 1e20, -8 and 1.5 reach here.
 */
export function parseAlignment(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || !isPowerOfTwo(value)) {
    throw new UsageError(`--align must be a power of two of bytes from 1 to 2^52 (1, 4, 64, 256...), got ${String(value)}.`);
  }
  return value;
}

function isPowerOfTwo(value: number): boolean {
  let rest = value;
  while (rest % 2 === 0) rest /= 2;
  return rest === 1;
}

/**
 * Refuses a problem whose sizes, each rounded up to the alignment, add up past 2^53 - 1:
 * a plan may need that sum, and past it offsets are no longer exact. The readers have
 * checked the sum without alignment; this is the part only the command knows.
 */
export function checkAlignedSizes(problem: Problem, alignment: number, source: string): void {
  if (alignment <= 1) return;
  const past = recordPastTotal(problem.records, alignment);
  if (past === undefined) return;
  const id = JSON.stringify(problem.records[past].id);
  throw new InputError(
    source,
    undefined,
    `with --align ${alignment}, record ${past} (id ${id}) brings the sum of the sizes, each rounded up to ${alignment} bytes, past 2^53 - 1 bytes, beyond which plans are not exact.`,
  );
}
