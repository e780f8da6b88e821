import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { InputError, parseWholeNumber } from './input-error.ts';

const COLUMNS = ['id', 'lower', 'upper', 'size'] as const;

/**
 * Reads records in MiniMalloc's CSV format: a header naming at least `id,lower,upper,size`
 * (extra columns such as `offset` are ignored here; parsePlacedRecordsCsv reads it), one buffer per line, lifetimes HALF-OPEN
 * [lower, upper). This is the io boundary: records come out closed, first = lower and
 * last = upper - 1.
 */
export function parseRecordsCsv(text: string, file: string): Problem {
  return readCsv(text, file, false).problem;
}

/**
 * A plan in MiniMalloc's CSV: its records (as parseRecordsCsv reads them) with the `offset`
 * column read too, as MiniMalloc writes its solutions (its input with an offset per buffer).
 */
export function parsePlacedRecordsCsv(text: string, file: string): { readonly problem: Problem; readonly offsets: readonly number[] } {
  return readCsv(text, file, true) as { problem: Problem; offsets: number[] };
}

function readCsv(text: string, file: string, placed: boolean): { problem: Problem; offsets?: number[] } {
  const rawLines = text.split('\n');
  const lines = rawLines.map((line) => line.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  // A file cut off in transfer ends without a line end; so do files from editors that omit
  // the last one. A line end (or a CR whose LF was cut) proves the last field complete.
  const lastIndex = lines.length - 1;
  const lastLineEnded = lastIndex < rawLines.length - 1 || rawLines[lastIndex]?.endsWith('\r') === true;
  if (lines.length === 0) throw new InputError(file, undefined, 'the file is empty; expected a header "id,lower,upper,size" and one line per buffer.');
  const header = lines[0].split(',').map((name) => name.trim().toLowerCase());
  const column: Record<(typeof COLUMNS)[number] | 'offset', number> = { id: -1, lower: -1, upper: -1, size: -1, offset: -1 };
  const wanted = placed ? [...COLUMNS, 'offset' as const] : COLUMNS;
  for (const name of wanted) {
    column[name] = header.indexOf(name);
    if (column[name] < 0) {
      throw new InputError(file, 1, `the header has no "${name}" column; expected at least "${wanted.join(',')}".`);
    }
  }
  if (lines.length === 1) throw new InputError(file, 1, 'the file has a header but no buffers.');

  const records: TensorUsageRecord[] = [];
  const lineOfId = new Map<string, number>();
  const readColumns = new Map<number, string>(wanted.map((name) => [column[name], name]));
  const offsets: number[] = [];
  let operatorCount = 0;
  let total = 0;
  for (let index = 1; index < lines.length; index++) {
    const line = index + 1;
    const fail = (problem: string): never => {
      throw new InputError(file, line, problem);
    };
    const fields = lines[index].split(',');
    if (lines[index].trim() === '') fail('the line is blank.');
    if (index === lastIndex && !lastLineEnded) checkUnendedLine(fields, header.length, readColumns, fail);
    if (fields.length < header.length) fail(`the line has ${fields.length} fields; the header has ${header.length}.`);
    const id = fields[column.id].trim();
    if (id === '') fail('the id is empty.');
    const lower = parseWholeNumber(fields[column.lower], 'lower', fail);
    const upper = parseWholeNumber(fields[column.upper], 'upper', fail);
    const size = parseWholeNumber(fields[column.size], 'size', fail);
    if (lower < 0) fail(`lower ${lower} is negative.`);
    if (upper <= lower) fail(`upper ${upper} is not after lower ${lower}; lifetimes are half-open [lower, upper).`);
    if (size < 0) fail(`size ${size} is negative.`);
    // Every plan fits in the sum of the sizes; past 2^53 its offsets would be rounded.
    total += size;
    if (total > Number.MAX_SAFE_INTEGER) fail(`size ${size} brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.`);
    const earlier = lineOfId.get(id);
    if (earlier !== undefined) fail(`id "${id}" was already used on line ${earlier}.`);
    lineOfId.set(id, line);
    records.push({ id, size, first: lower, last: upper - 1 });
    if (placed) {
      const offset = parseWholeNumber(fields[column.offset], 'offset', fail);
      if (offset < 0) fail(`offset ${offset} is negative.`);
      if (offset + size > Number.MAX_SAFE_INTEGER) fail(`offset ${offset} + size ${size} is past 2^53 - 1 bytes, beyond which plans are not exact.`);
      offsets.push(offset);
    }
    operatorCount = Math.max(operatorCount, upper);
  }
  return { problem: makeProblem(baseName(file), records, operatorCount), ...(placed ? { offsets } : {}) };
}

/**
 * The last line of a file that ends without a line end may have been cut off. That shows
 * when fields are missing; a cut inside the last field cannot be seen (`20` cut to `2` is
 * still a number), so a last field that is read (id, lower, upper, size) is refused rather
 * than read with a value that may be short. A last field that is not read (an `offset`
 * column after the size, as in idealloc's files) changes nothing when cut.
 */
function checkUnendedLine(fields: readonly string[], headerLength: number, readColumns: ReadonlyMap<number, string>, fail: (problem: string) => never): void {
  if (fields.length < headerLength) {
    fail(`the last line has ${fields.length} fields, the header ${headerLength}, and no line end: the file looks cut off.`);
  }
  const lastName = readColumns.get(fields.length - 1);
  if (lastName !== undefined) {
    fail(`the last line has no line end, so its ${lastName} "${fields[fields.length - 1].trim()}" may be cut off; if the file is complete, end it with a line break.`);
  }
}

export function baseName(file: string): string {
  return file.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '');
}
