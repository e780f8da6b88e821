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
