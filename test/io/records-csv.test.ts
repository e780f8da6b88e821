import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/io/input-error.ts';
import { parseRecordsCsv } from '../../src/io/records-csv.ts';

const FILE = 'traces/model.csv';

/** Parses and returns the InputError it must throw. */
function inputError(text: string, file = FILE): InputError {
  try {
    parseRecordsCsv(text, file);
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

describe('parseRecordsCsv: what it reads', () => {
  it('converts half-open [lower, upper) to closed [first, last] (first = lower, last = upper - 1)', () => {
    const problem = parseRecordsCsv('id,lower,upper,size\na,0,3,16\nb,2,3,8\nc,3,7,4\n', FILE);
    expect(problem.records).toEqual([
      { id: 'a', size: 16, first: 0, last: 2 },
      { id: 'b', size: 8, first: 2, last: 2 },
      { id: 'c', size: 4, first: 3, last: 6 },
    ]);
  });

  it('counts operators as the largest upper', () => {
    const problem = parseRecordsCsv('id,lower,upper,size\na,0,3,16\nb,5,12,8\nc,3,7,4\n', FILE);
    expect(problem.operatorCount).toBe(12);
  });

  it('names the problem after the file, without folder and extension', () => {
    expect(parseRecordsCsv('id,lower,upper,size\na,0,1,1\n', 'some/dir/input.12.csv').name).toBe('input.12');
  });

  it('ignores extra columns such as offset', () => {
    const problem = parseRecordsCsv('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20,10\n', FILE);
    expect(problem.records).toEqual([
      { id: 'a', size: 10, first: 0, last: 1 },
      { id: 'b', size: 20, first: 1, last: 2 },
    ]);
  });

  it('finds the columns by name when they come in another order', () => {
    const problem = parseRecordsCsv('size,offset,upper,id,lower\n10,0,2,a,0\n20,10,3,b,1\n', FILE);
    expect(problem.records).toEqual([
      { id: 'a', size: 10, first: 0, last: 1 },
      { id: 'b', size: 20, first: 1, last: 2 },
    ]);
    expect(problem.operatorCount).toBe(3);
  });

  it('reads CRLF line endings and ignores trailing blank lines', () => {
    const lf = parseRecordsCsv('id,lower,upper,size\na,0,2,10\nb,1,3,20\n', FILE);
    const crlf = parseRecordsCsv('id,lower,upper,size\r\na,0,2,10\r\nb,1,3,20\r\n\r\n\r\n', FILE);
    const blankTail = parseRecordsCsv('id,lower,upper,size\na,0,2,10\nb,1,3,20\n\n  \n', FILE);
    // A CR whose LF was cut still ends the line: the number before it is whole.
    const crOnly = parseRecordsCsv('id,lower,upper,size\r\na,0,2,10\r\nb,1,3,20\r', FILE);
    expect(crlf).toEqual(lf);
    expect(blankTail).toEqual(lf);
    expect(crOnly).toEqual(lf);
  });

  it('reads a last line without a line end when its last field is an ignored column (idealloc writes such files)', () => {
    const ended = parseRecordsCsv('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20,10\n', FILE);
    expect(parseRecordsCsv('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20,10', FILE)).toEqual(ended);
    // Cut inside the offset, or right after its comma: the size is whole, and it is read.
    expect(parseRecordsCsv('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20,1', FILE)).toEqual(ended);
    expect(parseRecordsCsv('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20,', FILE)).toEqual(ended);
  });

  it('keeps the records in input order and accepts size 0', () => {
    const problem = parseRecordsCsv('id,lower,upper,size\nz,4,5,0\ny,0,1,7\nx,2,9,3\n', FILE);
    expect(problem.records.map((r) => r.id)).toEqual(['z', 'y', 'x']);
    expect(problem.records[0].size).toBe(0);
  });

  it('reads sizes up to 2^53 - 1 exactly', () => {
    const problem = parseRecordsCsv(`id,lower,upper,size\na,0,1,${Number.MAX_SAFE_INTEGER}\n`, FILE);
    expect(problem.records[0].size).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('parseRecordsCsv: bad input names the file, the line and what is wrong', () => {
  it('empty file', () => {
    expectError('', undefined, /empty/);
    expectError('\n\n  \r\n', undefined, /empty/);
  });

  it('header without rows (line 1)', () => {
    expectError('id,lower,upper,size\n', 1, /no buffers/);
    expectError('id,lower,upper,size\r\n\r\n', 1, /no buffers/);
  });

  it.each(['id', 'lower', 'upper', 'size'])('missing column %s (header, line 1)', (column) => {
    const header = ['id', 'lower', 'upper', 'size'].filter((c) => c !== column).join(',');
    expectError(`${header}\na,0,1\n`, 1, new RegExp(`no "${column}" column`));
  });

  it('non-integer fields, on the right line', () => {
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3,1.5\n', 3, /size "1\.5" is not a whole number/);
    expectError('id,lower,upper,size\na,0,2,10\nb,x,3,1\n', 3, /lower "x" is not a whole number/);
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3e2,1\n', 3, /upper "3e2" is not a whole number/);
    expectError('id,lower,upper,size\na,0,2,\n', 2, /size "" is not a whole number/);
  });

  it('negative size', () => {
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3,20\nc,0,1,-4\n', 4, /size -4 is negative/);
  });

  it('negative lower', () => {
    expectError('id,lower,upper,size\na,-1,2,10\n', 2, /lower -1 is negative/);
  });

  it('upper <= lower', () => {
    expectError('id,lower,upper,size\na,0,2,10\nb,3,3,20\n', 3, /upper 3 is not after lower 3/);
    expectError('id,lower,upper,size\na,5,2,10\n', 2, /upper 2 is not after lower 5/);
  });

  it('duplicate id, naming the earlier line', () => {
    const error = expectError('id,lower,upper,size\na,0,2,10\nb,1,3,20\nc,0,1,4\nb,4,5,1\n', 5, /id "b"/);
    expect(error.message).toMatch(/line 3/);
  });

  it('too few fields', () => {
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3\n', 3, /3 fields; the header has 4/);
  });

  it('a blank line between records', () => {
    expectError('id,lower,upper,size\na,0,2,10\n\nb,1,3,20\n', 3, /blank/);
  });

  it('empty id', () => {
    expectError('id,lower,upper,size\n,0,2,10\n', 2, /id is empty/);
  });

  it('size over 2^53 (9007199254740993 has no exact double)', () => {
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3,9007199254740993\n', 3, /9007199254740993 is over 2\^53/);
    expectError(`id,lower,upper,size\na,0,2,${2 ** 53}\n`, 2, /over 2\^53/);
  });

  it('a file cut off inside its last number: refused, naming the line and the field, never read with the shorter size (issue 38)', () => {
    // 'b,1,3,20' cut to 'b,1,3,2' would plan b with 2 bytes instead of 20.
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3,2', 3, /the last line has no line end, so its size "2" may be cut off/);
    // The same whatever column is last: an id cut short is another id.
    expectError('size,lower,upper,id\n10,0,2,a\n20,1,3,b', 3, /its id "b" may be cut off/);
    // A file without a final line break is refused even when complete: nothing tells it apart.
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3,20', 3, /if the file is complete, end it with a line break/);
    // Fields missing at the end of a file: cut off.
    expectError('id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,20', 3, /4 fields, the header 5, and no line end: the file looks cut off/);
    expectError('id,lower,upper,size\na,0,2,10\nb,1,3', 3, /3 fields, the header 4, and no line end/);
  });

  it('-0 as a size or a bound: refused (Number("-0") is -0, which passes every "< 0" test)', () => {
    expectError('id,lower,upper,size\na,0,2,-0\n', 2, /size -0 is a negative zero; write 0/);
    expectError('id,lower,upper,size\na,-0,2,1\n', 2, /lower -0 is a negative zero/);
    expectError('id,lower,upper,size\na,0,-00,1\n', 2, /upper -00 is a negative zero/);
    // +0 and 0 are zero.
    expect(parseRecordsCsv('id,lower,upper,size\na,+0,2,0\n', FILE).records[0]).toEqual({ id: 'a', size: 0, first: 0, last: 1 });
  });

  it('sizes whose sum passes 2^53 - 1: refused on the line that passes it (plans past it are not exact)', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expectError(`id,lower,upper,size\na,0,2,${max}\nb,1,3,${max}\nc,0,3,${2 ** 52}\n`, 3, /size 9007199254740991 brings the sum of the sizes past 2\^53 - 1 bytes/);
    expectError(`id,lower,upper,size\na,0,2,${max}\nb,1,3,1\n`, 3, /past 2\^53 - 1/);
    // Exactly 2^53 - 1 in all is read.
    expect(parseRecordsCsv(`id,lower,upper,size\na,0,2,${max - 1}\nb,1,3,1\n`, FILE).records).toHaveLength(2);
  });

  it('counts lines the same with CRLF endings', () => {
    expectError('id,lower,upper,size\r\na,0,2,10\r\nb,1,3,-1\r\n', 3, /size -1 is negative/);
  });
});
