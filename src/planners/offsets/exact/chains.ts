import type { Problem } from '../../../core/problem.ts';
import type { TensorUsageRecord } from '../../../core/records.ts';

/**
 * Chains of records that hand their memory on: record a ends at operator t and record b
 * starts at t + 1 with the same size, and no other record of that size ends at t or
 * starts at t + 1 (a chain of activations through layers that keep their shape, as an
 * elementwise op after a convolution). Giving the whole chain one offset is a restriction
 * (a packing of the chains is a packing of the records, not every packing of the records
 * is one of chains), so chains only help to find packings, never to prove a bound; they
 * often pack much better than the records alone, because the search places a chain as
 * one long record instead of guessing where its links go.
 */
export interface Chains {
  /** One record per chain (its first link's id, first operator, last link's last operator). */
  readonly problem: Problem;
  /** Chain of each record of the source problem. */
  readonly chainOf: Int32Array;
}

/** The chains of `problem`, or undefined when no two records chain. */
export function chainsOf(problem: Problem): Chains | undefined {
  const { records } = problem;
  const n = records.length;
  const startsAt = new Map<string, number[]>();
  const endsAt = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, i: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [i]);
    else list.push(i);
  };
  records.forEach((r, i) => {
    if (r.size === 0) return;
    add(startsAt, `${r.first}:${r.size}`, i);
    add(endsAt, `${r.last + 1}:${r.size}`, i);
  });
  const next = new Int32Array(n).fill(-1);
  const linked = new Uint8Array(n);
  let links = 0;
  for (const [key, ending] of endsAt) {
    const starting = startsAt.get(key);
    if (starting === undefined || starting.length !== 1 || ending.length !== 1) continue;
    next[ending[0]] = starting[0];
    linked[starting[0]] = 1;
    links++;
  }
  if (links === 0) return undefined;
  const chainOf = new Int32Array(n);
  const merged: TensorUsageRecord[] = [];
  for (let i = 0; i < n; i++) {
    if (linked[i]) continue;
    let last = records[i].last;
    for (let j = i; j >= 0; j = next[j]) {
      chainOf[j] = merged.length;
      last = records[j].last;
    }
    merged.push({ id: records[i].id, size: records[i].size, first: records[i].first, last });
  }
  return { problem: { name: `${problem.name}#chains`, records: merged, operatorCount: problem.operatorCount }, chainOf };
}
