import { describe, expect, it } from 'vitest';
import { makeProblem } from '../../src/core/problem.ts';
import { checkAlignedSizes, parseAlignment } from '../../src/cli/alignment-option.ts';
import { UsageError } from '../../src/cli/errors.ts';
import { InputError } from '../../src/io/input-error.ts';

describe('parseAlignment (--align of plan and export)', () => {
  it.each([1, 2, 4, 64, 256, 4096, 2 ** 52])('takes %d', (value) => {
    expect(parseAlignment(value)).toBe(value);
  });

  it.each([0, -8, 1e20, 3, 1.5, 96, 2 ** 53, Number.NaN, Infinity, '64', undefined])('refuses %s with a UsageError', (value) => {
    expect(() => parseAlignment(value)).toThrow(UsageError);
    expect(() => parseAlignment(value)).toThrow(`--align must be a power of two of bytes from 1 to 2^52 (1, 4, 64, 256...), got ${String(value)}.`);
  });
});

describe('checkAlignedSizes', () => {
  const problem = makeProblem('p', [
    { id: 'a', size: 2 ** 52, first: 0, last: 1 },
    { id: 'b', size: 2 ** 52 - 65, first: 1, last: 2 },
    { id: 'c', size: 1, first: 0, last: 2 },
  ]);

  it('passes sizes whose rounded sum stays below 2^53', () => {
    expect(() => checkAlignedSizes(problem, 1, 'p.csv')).not.toThrow();
    expect(() => checkAlignedSizes(problem, 32, 'p.csv')).not.toThrow();
  });

  it('refuses, naming the file and the record, once rounding takes the sum to 2^53', () => {
    expect(() => checkAlignedSizes(problem, 64, 'p.csv')).toThrow(InputError);
    expect(() => checkAlignedSizes(problem, 64, 'p.csv')).toThrow(
      'p.csv: with --align 64, record 2 (id "c") brings the sum of the sizes, each rounded up to 64 bytes, past 2^53 - 1 bytes, beyond which plans are not exact.',
    );
  });
});
