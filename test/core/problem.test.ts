import { describe, expect, it } from 'vitest';
import { InvalidProblemError, makeProblem, naiveFootprint, recordPastTotal } from '../../src/core/problem.ts';
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

  it('reject sizes whose sum passes 2^53 - 1, naming the record that passes it (issue 38: every plan of them came out invalid or NaN)', () => {
    const max = Number.MAX_SAFE_INTEGER;
    const records = [record('a', max, 0, 1), record('b', max, 1, 2), record('c', 2 ** 52, 0, 2)];
    expect(() => makeProblem('p', records)).toThrow(InvalidProblemError);
    expect(() => makeProblem('p', records)).toThrow('problem "p": record 1 (id "b") brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.');
    // A sum of exactly 2^53 - 1 is exact: naive's footprint is that number.
    expect(naiveFootprint(makeProblem('p', [record('a', max - 2, 0, 1), record('b', 2, 1, 2)]))).toBe(max);
  });

  it('recordPastTotal: the sizes each rounded up to the alignment', () => {
    const records = [record('a', 2 ** 52 - 1, 0, 1), record('b', 2 ** 52 - 1, 1, 2), record('c', 1, 0, 2)];
    expect(recordPastTotal(records)).toBeUndefined();
    // 2^52 - 1 rounds up to 2^52 at 64 bytes: a + b = 2^53 is past.
    expect(recordPastTotal(records, 64)).toBe(1);
    expect(recordPastTotal([record('a', 1, 0, 0)], 2 ** 52)).toBeUndefined();
    expect(recordPastTotal([record('a', 1, 0, 0), record('b', 1, 0, 0)], 2 ** 52)).toBe(1);
    expect(recordPastTotal([])).toBeUndefined();
  });

  it('reject an operator count that leaves records out', () => {
    expect(() => makeProblem('p', [record('a', 1, 0, 4)], 4)).toThrow(/too small/);
  });

  it('closed intervals conflict when they share an operator', () => {
    expect(conflicts(record('a', 1, 0, 1), record('b', 1, 1, 2))).toBe(true);
    expect(conflicts(record('a', 1, 0, 1), record('b', 1, 2, 3))).toBe(false);
  });
});
