import { stringify } from 'csv-stringify/sync';
import type { Problem } from '../core/problem.ts';

/** MiniMalloc CSV: `id,lower,upper,size`, HALF-OPEN lifetimes (upper = last + 1). */
export function recordsToCsv(problem: Problem): string {
  return stringify([['id', 'lower', 'upper', 'size'], ...problem.records.map((r) => [r.id, r.first, r.last + 1, r.size])]);
}

/** JSON records with CLOSED intervals, one record per line. */
export function recordsToJson(problem: Problem): string {
  const lines = problem.records.map((r) => `  ${JSON.stringify({ id: r.id, size: r.size, first: r.first, last: r.last })}`);
  return `[\n${lines.join(',\n')}\n]\n`;
}

/** A plan in MiniMalloc's CSV, as MiniMalloc writes its solutions: `id,lower,upper,size,offset`, half-open. */
export function placedRecordsToCsv(problem: Problem, offsets: readonly number[]): string {
  return stringify([['id', 'lower', 'upper', 'size', 'offset'], ...problem.records.map((r, i) => [r.id, r.first, r.last + 1, r.size, offsets[i]])]);
}

/** A plan as JSON: the records with CLOSED intervals, each with its offset, one per line. */
export function placedRecordsToJson(problem: Problem, offsets: readonly number[]): string {
  const lines = problem.records.map((r, i) => `  ${JSON.stringify({ id: r.id, size: r.size, first: r.first, last: r.last, offset: offsets[i] })}`);
  return `{\n "operatorCount": ${problem.operatorCount},\n "records": [\n${lines.join(',\n')}\n ]\n}\n`;
}
