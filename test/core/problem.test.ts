import { describe, expect, it } from 'vitest';
import { InvalidProblemError, makeProblem, naiveFootprint } from '../../src/core/problem.ts';
import { conflicts } from '../../src/core/records.ts';

describe('problems', () => {
  const record = (id: string, size: number, first: number, last: number) => ({ id, size, first, last });

  it('count operators up to the last one used', () => {
    const problem = makeProblem('p', [record('a', 4, 0, 2), record('b', 6, 1, 5)]);
    expect(problem.operatorCount).toBe(6);
    expect(naiveFootprint(problem)).toBe(10);
  });

  it.each([
    [[record('a', 4, 0, 2), record('a', 6, 1, 5)], /repeats an id/],
    [[record('a', -1, 0, 2)], /size -1/],
    [[record('a', 2 ** 53, 0, 2)], /2\^53/],
    [[record('a', 1.5, 0, 2)], /size 1.5/],
    [[record('a', 1, 3, 2)], /last operator 2/],
    [[record('a', 1, -1, 2)], /first operator -1/],
  ])('reject invalid records (%#)', (records, message) => {
    expect(() => makeProblem('p', records)).toThrow(InvalidProblemError);
    expect(() => makeProblem('p', records)).toThrow(message);
  });

  it('reject an operator count that leaves records out', () => {
    expect(() => makeProblem('p', [record('a', 1, 0, 4)], 4)).toThrow(/too small/);
  });

  it('closed intervals conflict when they share an operator', () => {
    expect(conflicts(record('a', 1, 0, 1), record('b', 1, 1, 2))).toBe(true);
    expect(conflicts(record('a', 1, 0, 1), record('b', 1, 2, 3))).toBe(false);
  });
});
