import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { InputError, parseWholeNumber } from './input-error.ts';
import { JsonSyntaxError, scanJson, type JsonPositions } from './json-positions.ts';
import { baseName } from './records-csv.ts';

/**
 * Reads records as JSON: `[{"id", "size", "first", "last"}, ...]` with CLOSED usage
 * intervals over operator indices, or `{"operatorCount": N, "records": [...]}`.
 * Errors name the line of the record at fault.
 */
export function parseRecordsJson(text: string, file: string): Problem {
  return readJson(text, file, false).problem;
}

/** A plan as JSON: the records as parseRecordsJson reads them, each with its `offset` (bytes). */
export function parsePlacedRecordsJson(text: string, file: string): { readonly problem: Problem; readonly offsets: readonly number[] } {
  return readJson(text, file, true) as { problem: Problem; offsets: number[] };
}

function readJson(text: string, file: string, placed: boolean): { problem: Problem; offsets?: number[] } {
  if (text.trim() === '') throw new InputError(file, undefined, 'the file is empty; expected a JSON array of {id, size, first, last}.');
  let positions: JsonPositions;
  try {
    positions = scanJson(text);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new InputError(file, error.line, `invalid JSON at column ${error.column}: ${error.problem}.`);
  }
  const data: unknown = JSON.parse(text);
  let list: unknown = data;
  let operatorCount: number | undefined;
  const operatorCountLine = positions.keyLines.get('operatorCount');
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const wrapper = data as { records?: unknown; operatorCount?: unknown };
    list = wrapper.records;
    if (wrapper.operatorCount !== undefined) {
      if (typeof wrapper.operatorCount !== 'number' || !Number.isSafeInteger(wrapper.operatorCount) || wrapper.operatorCount < 0 || Object.is(wrapper.operatorCount, -0)) {
        throw new InputError(file, operatorCountLine, `"operatorCount" must be a whole number >= 0.`);
      }
      operatorCount = wrapper.operatorCount;
    }
  }
  if (!Array.isArray(list)) throw new InputError(file, 1, 'expected an array of records {id, size, first, last} (or an object with "records").');
  if (list.length === 0) throw new InputError(file, 1, 'the file has no records.');

  const lines = positions.elementLines;
  const records: TensorUsageRecord[] = [];
  const seen = new Map<string, number>();
  const offsets: number[] = [];
  let total = 0;
  list.forEach((item, index) => {
    const line = lines[index];
    const fail = (problem: string): never => {
      throw new InputError(file, line, `record ${index}: ${problem}`);
    };
    if (item === null || typeof item !== 'object' || Array.isArray(item)) fail('expected an object {id, size, first, last}.');
    const entry = item as Record<string, unknown>;
    for (const key of placed ? ['id', 'size', 'first', 'last', 'offset'] : ['id', 'size', 'first', 'last']) if (!(key in entry)) fail(`the field "${key}" is missing.`);
    if (typeof entry.id !== 'string' && typeof entry.id !== 'number') fail('"id" must be a string or a number.');
    const number = (key: string): number => {
      const value = entry[key];
      if (typeof value !== 'number') fail(`"${key}" must be a JSON number, not ${describeJson(value)}.`);
      // JSON.parse reads -0 as -0, which String() prints as "0": the sign would be lost.
      if (Object.is(value, -0)) fail(`"${key}" -0 is a negative zero; write 0.`);
      return parseWholeNumber(String(value), `"${key}"`, fail);
    };
    const id = String(entry.id);
    if (id === '') fail('"id" is empty.');
    const size = number('size');
    const first = number('first');
    const last = number('last');
    if (size < 0) fail(`"size" ${size} is negative.`);
    // Every plan fits in the sum of the sizes; past 2^53 its offsets would be rounded.
    total += size;
    if (total > Number.MAX_SAFE_INTEGER) fail(`"size" ${size} brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.`);
    if (first < 0) fail(`"first" ${first} is negative.`);
    if (last < first) fail(`"last" ${last} is before "first" ${first}; intervals are closed [first, last].`);
    const earlier = seen.get(id);
    if (earlier !== undefined) fail(`id "${id}" was already used by record ${earlier}.`);
    seen.set(id, index);
    records.push({ id, size, first, last });
    if (placed) {
      const offset = number('offset');
      if (offset < 0) fail(`"offset" ${offset} is negative.`);
      if (offset + size > Number.MAX_SAFE_INTEGER) fail(`"offset" ${offset} + "size" ${size} is past 2^53 - 1 bytes, beyond which plans are not exact.`);
      offsets.push(offset);
    }
  });
  let lastOperator = 0;
  for (const r of records) lastOperator = Math.max(lastOperator, r.last);
  if (operatorCount !== undefined && operatorCount <= lastOperator) {
    throw new InputError(file, operatorCountLine, `"operatorCount" ${operatorCount} is too small: a record uses operator ${lastOperator}.`);
  }
  return { problem: makeProblem(baseName(file), records, operatorCount), ...(placed ? { offsets } : {}) };
}

/**
 * A value as an error names it: short, and without JSON.stringify, which recurses (a
 * value nested 10,000 deep overflows the stack) and may print megabytes.
 */
function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}...` : JSON.stringify(value);
  return String(value);
}
