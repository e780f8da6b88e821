import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { InputError, parseWholeNumber } from './input-error.ts';
import { baseName } from './records-csv.ts';

/**
 * Reads records as JSON: `[{"id", "size", "first", "last"}, ...]` with CLOSED usage
 * intervals over operator indices, or `{"operatorCount": N, "records": [...]}`.
 * Errors name the line of the record at fault.
 */
export function parseRecordsJson(text: string, file: string): Problem {
  if (text.trim() === '') throw new InputError(file, undefined, 'the file is empty; expected a JSON array of {id, size, first, last}.');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const { line, column } = positionOf(text, error);
    throw new InputError(file, line, `invalid JSON at column ${column}: ${(error as Error).message.replace(/ in JSON at position \d+.*$/s, '')}.`);
  }
  let list: unknown = data;
  let operatorCount: number | undefined;
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const wrapper = data as { records?: unknown; operatorCount?: unknown };
    list = wrapper.records;
    if (wrapper.operatorCount !== undefined) {
      if (typeof wrapper.operatorCount !== 'number' || !Number.isSafeInteger(wrapper.operatorCount) || wrapper.operatorCount < 0) {
        throw new InputError(file, 1, `"operatorCount" must be a whole number >= 0.`);
      }
      operatorCount = wrapper.operatorCount;
    }
  }
  if (!Array.isArray(list)) throw new InputError(file, 1, 'expected an array of records {id, size, first, last} (or an object with "records").');
  if (list.length === 0) throw new InputError(file, 1, 'the file has no records.');

  const lines = elementLines(text);
  const records: TensorUsageRecord[] = [];
  const seen = new Map<string, number>();
  list.forEach((item, index) => {
    const line = lines[index];
    const fail = (problem: string): never => {
      throw new InputError(file, line, `record ${index}: ${problem}`);
    };
    if (item === null || typeof item !== 'object' || Array.isArray(item)) fail('expected an object {id, size, first, last}.');
    const entry = item as Record<string, unknown>;
    for (const key of ['id', 'size', 'first', 'last']) if (!(key in entry)) fail(`the field "${key}" is missing.`);
    if (typeof entry.id !== 'string' && typeof entry.id !== 'number') fail('"id" must be a string or a number.');
    const number = (key: string): number => {
      const value = entry[key];
      if (typeof value !== 'number' && typeof value !== 'string') fail(`"${key}" must be a whole number.`);
      return parseWholeNumber(String(value), `"${key}"`, fail);
    };
    const id = String(entry.id);
    const size = number('size');
    const first = number('first');
    const last = number('last');
    if (size < 0) fail(`"size" ${size} is negative.`);
    if (first < 0) fail(`"first" ${first} is negative.`);
    if (last < first) fail(`"last" ${last} is before "first" ${first}; intervals are closed [first, last].`);
    const earlier = seen.get(id);
    if (earlier !== undefined) fail(`id "${id}" was already used by record ${earlier}.`);
    seen.set(id, index);
    records.push({ id, size, first, last });
  });
  const lastOperator = Math.max(...records.map((r) => r.last));
  if (operatorCount !== undefined && operatorCount <= lastOperator) {
    throw new InputError(file, 1, `"operatorCount" ${operatorCount} is too small: a record uses operator ${lastOperator}.`);
  }
  return makeProblem(baseName(file), records, operatorCount);
}

/** Line and column of a JSON.parse error, from the position V8 reports. */
function positionOf(text: string, error: unknown): { line: number | undefined; column: number } {
  const match = /position (\d+)/.exec(String((error as Error).message));
  const at = match ? Number(match[1]) : text.length;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, column: at - before.lastIndexOf('\n') };
}

/** The line on which each element of the records array starts (1-based). */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let arrayDepth = -1;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (expectElement && !/\s/.test(c) && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      // The records array is the first array met (top level, or under "records").
      if (c === '[' && arrayDepth < 0) {
        arrayDepth = depth;
        expectElement = true;
      }
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === arrayDepth) expectElement = true;
  }
  return lines;
}
