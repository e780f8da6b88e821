import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/io/input-error.ts';
import { parseRecordsJson } from '../../src/io/records-json.ts';

const FILE = 'traces/model.json';

/** One record per line, as a person (or JSON.stringify with a replacer) writes them. */
function lines(records: readonly unknown[]): string {
  return `[\n${records.map((r) => `  ${typeof r === 'string' ? r : JSON.stringify(r)}`).join(',\n')}\n]\n`;
}

const GOOD = [
  { id: 't0', size: 32, first: 0, last: 1 },
  { id: 't1', size: 28, first: 1, last: 4 },
  { id: 't2', size: 36, first: 2, last: 5 },
];

function inputError(text: string): InputError {
  try {
    parseRecordsJson(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError, but the text parsed');
}

/** The error names the file and the line (`file:line: ...`), in one line, and says `what`. */
function expectError(text: string, line: number | undefined, what: RegExp): InputError {
  const error = inputError(text);
  expect(error.file).toBe(FILE);
  expect(error.line).toBe(line);
  expect(error.message.startsWith(line === undefined ? `${FILE}: ` : `${FILE}:${line}: `)).toBe(true);
  expect(error.message).toMatch(what);
  expect(error.message).not.toContain('\n');
  return error;
}

describe('parseRecordsJson: what it reads', () => {
  it('reads an array of closed [first, last] records as they are', () => {
    const problem = parseRecordsJson(lines(GOOD), 'dir/paper.json');
    expect(problem.records).toEqual(GOOD);
    expect(problem.operatorCount).toBe(6); // one past the last operator used
    expect(problem.name).toBe('paper');
  });

  it('reads {operatorCount, records}', () => {
    const problem = parseRecordsJson(JSON.stringify({ operatorCount: 10, records: GOOD }, null, 2), FILE);
    expect(problem.records).toEqual(GOOD);
    expect(problem.operatorCount).toBe(10);
  });

  it('reads {records} without operatorCount (one past the last operator used)', () => {
    const problem = parseRecordsJson(JSON.stringify({ records: GOOD }), FILE);
    expect(problem.operatorCount).toBe(6);
  });

  it('accepts numeric ids (as strings) and size 0', () => {
    const problem = parseRecordsJson('[{"id": 7, "size": 0, "first": 3, "last": 3}]', FILE);
    expect(problem.records).toEqual([{ id: '7', size: 0, first: 3, last: 3 }]);
  });

  it('reads sizes up to 2^53 - 1 exactly', () => {
    const problem = parseRecordsJson(`[{"id": "a", "size": ${Number.MAX_SAFE_INTEGER}, "first": 0, "last": 0}]`, FILE);
    expect(problem.records[0].size).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('parseRecordsJson: bad input names the file, the line of the record and what is wrong', () => {
  it('empty file', () => {
    expectError('', undefined, /empty/);
    expectError(' \n\t\n', undefined, /empty/);
  });

  it('empty array, also inside {records}', () => {
    expectError('[]\n', 1, /no records/);
    expectError('{"operatorCount": 3, "records": []}\n', 1, /no records/);
  });

  it('neither an array nor an object with records', () => {
    expectError('42\n', 1, /expected an array/);
    expectError('{"operatorCount": 3}\n', 1, /expected an array/);
  });

  it.each(['id', 'size', 'first', 'last'])('missing field %s', (field) => {
    const broken = Object.fromEntries(Object.entries(GOOD[2]).filter(([key]) => key !== field));
    expectError(lines([GOOD[0], GOOD[1], broken]), 4, new RegExp(`record 2: the field "${field}" is missing`));
  });

  it('a record that is not an object', () => {
    expectError(lines([GOOD[0], '[1, 2]', GOOD[2]]), 3, /record 1: expected an object/);
  });

  it('non-integer fields', () => {
    expectError(lines([GOOD[0], { ...GOOD[1], size: 1.5 }]), 3, /record 1: "size" "1\.5" is not a whole number/);
    expectError(lines([GOOD[0], GOOD[1], { ...GOOD[2], first: 'two' }]), 4, /record 2: "first" must be a JSON number, not "two"/);
    expectError(lines([{ ...GOOD[0], last: true }]), 2, /record 0: "last" must be a JSON number, not true/);
    expectError(lines([{ ...GOOD[0], last: null }]), 2, /record 0: "last" must be a JSON number, not null/);
    expectError(lines([{ ...GOOD[0], size: '12' }]), 2, /record 0: "size" must be a JSON number, not "12"/);
    expectError(lines([{ ...GOOD[0], id: '' }]), 2, /record 0: "id" is empty/);
  });

  it('id of the wrong type', () => {
    expectError(lines([GOOD[0], { ...GOOD[1], id: { name: 'x' } }]), 3, /record 1: "id" must be a string or a number/);
  });

  it('negative size', () => {
    expectError(lines([GOOD[0], GOOD[1], { ...GOOD[2], size: -4 }]), 4, /record 2: "size" -4 is negative/);
  });

  it('negative first', () => {
    expectError(lines([{ ...GOOD[0], first: -1 }]), 2, /record 0: "first" -1 is negative/);
  });

  it('last < first', () => {
    expectError(lines([GOOD[0], { ...GOOD[1], first: 5, last: 4 }]), 3, /record 1: "last" 4 is before "first" 5/);
  });

  it('duplicate id, naming the earlier record', () => {
    expectError(lines([GOOD[0], GOOD[1], { ...GOOD[2], id: 't0' }]), 4, /record 2: id "t0" was already used by record 0/);
  });

  it('size over 2^53 (9007199254740993 has no exact double)', () => {
    expectError(lines([GOOD[0], '{"id": "big", "size": 9007199254740993, "first": 0, "last": 1}']), 3, /record 1: "size" \d+ is over 2\^53/);
  });

  it('the records of {records} are found on their own lines', () => {
    const text = `{"operatorCount": 9, "records": [\n  ${JSON.stringify(GOOD[0])},\n  ${JSON.stringify({ ...GOOD[1], size: -1 })}\n]}\n`;
    expectError(text, 3, /record 1: "size" -1 is negative/);
  });

  it('operatorCount too small for the records', () => {
    const text = `{"operatorCount": 5, "records": [\n  ${GOOD.map((r) => JSON.stringify(r)).join(',\n  ')}\n]}\n`;
    expectError(text, 1, /"operatorCount" 5 is too small: a record uses operator 5/);
  });

  it('operatorCount that is not a whole number >= 0', () => {
    expectError(`{"operatorCount": -1, "records": ${JSON.stringify(GOOD)}}`, 1, /"operatorCount" must be a whole number/);
    expectError(`{"operatorCount": 6.5, "records": ${JSON.stringify(GOOD)}}`, 1, /"operatorCount" must be a whole number/);
    expectError(`{"operatorCount": "6", "records": ${JSON.stringify(GOOD)}}`, 1, /"operatorCount" must be a whole number/);
  });

  it('invalid JSON: line and column of a missing comma', () => {
    // Line 3 starts a second record without a comma after the first: column 3 is its "{".
    expectError('[\n  {"id": "a", "size": 1, "first": 0, "last": 0}\n  {"id": "b", "size": 1, "first": 0, "last": 0}\n]\n', 3, /invalid JSON at column 3/);
  });

  it('invalid JSON: line and column of an unterminated record at the end', () => {
    // The input ends after column 12 of line 3: the missing "}" belongs at column 13.
    expectError('[\n  {"id": "a", "size": 1, "first": 0, "last": 0},\n  {"id": "b"', 3, /invalid JSON at column 13/);
  });

  // V8's "Unexpected token" messages carry no position and quote a multi-line snippet;
  // the reader's own scanner must still give the line and column, in one line.
  it('invalid JSON: line and column of an unexpected token, in one line', () => {
    // The "x" is on line 3, column 10.
    expectError('[\n  {"id": "a", "size": 1, "first": 0, "last": 0},\n  {"id": x, "size": 1, "first": 0, "last": 0}\n]\n', 3, /invalid JSON at column 10/);
  });

  it('invalid JSON: a trailing comma, in one line', () => {
    // The "]" after the trailing comma is on line 3, column 1.
    expectError('[\n  {"id": "a", "size": 1, "first": 0, "last": 0},\n]\n', 3, /invalid JSON at column 1\b/);
  });

  // An ignored key holding an array before "records" must not shift the lines.
  it('the records of {records} are found after another array-valued key', () => {
    const text = `{\n  "notes": ["from a profiler"],\n  "records": [\n    ${JSON.stringify({ ...GOOD[0], size: -1 })},\n    ${JSON.stringify(GOOD[1])}\n  ]\n}\n`;
    expectError(text, 4, /record 0: "size" -1 is negative/);
  });
});

describe('parseRecordsJson: nothing lost (issue 38)', () => {
  it('-0 as a size or a bound: refused (JSON.parse reads -0, which String() prints as 0)', () => {
    expectError(lines([{ id: 'a', size: 1, first: 0, last: 0 }, '{"id": "b", "size": -0, "first": 0, "last": 1}']), 3, /record 1: "size" -0 is a negative zero; write 0/);
    expectError(lines(['{"id": "a", "size": 1, "first": -0, "last": 0}']), 2, /"first" -0 is a negative zero/);
    expectError(lines(['{"id": "a", "size": 1, "first": 0, "last": -0.0}']), 2, /"last" -0 is a negative zero/);
    expectError(`{\n  "operatorCount": -0,\n  "records": ${lines([GOOD[0]])}}`, 2, /"operatorCount" must be a whole number >= 0/);
  });

  it('sizes whose sum passes 2^53 - 1: refused on the record that passes it', () => {
    const max = Number.MAX_SAFE_INTEGER;
    const text = lines([
      { id: 'a', size: max, first: 0, last: 1 },
      { id: 'b', size: max, first: 1, last: 2 },
      { id: 'c', size: 2 ** 52, first: 0, last: 2 },
    ]);
    expectError(text, 3, /record 1: "size" 9007199254740991 brings the sum of the sizes past 2\^53 - 1 bytes/);
    expect(
      parseRecordsJson(
        lines([
          { id: 'a', size: max - 1, first: 0, last: 1 },
          { id: 'b', size: 1, first: 1, last: 2 },
        ]),
        FILE,
      ).records,
    ).toHaveLength(2);
  });

  it('a file cut off anywhere before its end is refused; the sentence says where the data stops', () => {
    const text = lines(GOOD);
    const end = text.trimEnd().length;
    for (let cut = 1; cut < end; cut++) {
      const error = inputError(text.slice(0, cut));
      expect(error.message, `cut at ${cut}`).not.toContain('\n');
    }
    // Cut inside the last number: "last":12 cut to "last":1.
    const wide = lines([{ id: 'x', size: 1, first: 0, last: 12 }]);
    expectError(wide.slice(0, wide.indexOf('"last":12') + 8), 2, /invalid JSON at column \d+: expected "," or "}" but found the end of the file/);
    expectError('[{"id": "a", "size": 1, "first": 0, "last": ', 1, /the file ends where a value should be \(was it cut off\?\)/);
  });

  it('200,000 nested "[" (and 10,000 nested "[" in a value): one sentence, no stack overflow', () => {
    const depth = 200_000;
    expectError('['.repeat(depth), 1, new RegExp(`invalid JSON at column ${depth + 1}: the file ends where a value should be`));
    expectError(`${'['.repeat(depth)}${']'.repeat(depth)}`, 1, /record 0: expected an object \{id, size, first, last\}/);
    const deepSize = `{"id": "a", "first": 0, "last": 1, "size": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expectError(lines([deepSize]), 2, /record 0: "size" must be a JSON number, not an array/);
    const deepObject = `{"id": "a", "first": 0, "last": 1, "size": ${'{"k":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    expectError(lines([deepObject]), 2, /not an object/);
  });

  it('repeated "records" keys: the lines are those of the records JSON.parse keeps (the last)', () => {
    const text = `{\n  "records": [\n    ${JSON.stringify(GOOD[0])}\n  ],\n  "records": [\n    ${JSON.stringify(GOOD[0])},\n    ${JSON.stringify({ ...GOOD[1], size: -1 })}\n  ]\n}\n`;
    expectError(text, 7, /record 1: "size" -1 is negative/);
  });
});

// Regression: spreading every record into Math.max overflows V8's stack above ~120k records.
describe('parseRecordsJson: large files', () => {
  it('reads 250,000 records', () => {
    const count = 250_000;
    const text = JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: `t${i}`, size: 64, first: i, last: i + 1 })));
    const problem = parseRecordsJson(text, FILE);
    expect(problem.records.length).toBe(count);
    expect(problem.operatorCount).toBe(count + 1);
  });
});
