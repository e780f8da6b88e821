import { alignUp } from '../../../core/alignment.ts';
import type { TensorUsageRecord } from '../../../core/records.ts';

/**
 * Splits an offsets problem into parts that can be solved on their own, without losing
 * optimality:
 *
 * - Time cuts: where no record is live across two consecutive operators, the records on
 *   either side never conflict, so each side is packed from offset 0 and the arena is the
 *   largest of the sides.
 * - Full-span stacking (alignment 1 only): a record live over the whole span of its part
 *   conflicts with every other record of the part, and any packing can be rearranged to
 *   hold it at the bottom (move it down, lift what was below it by its size): the arena
 *   does not change. Such records are stacked at the bottom of the part; the rest of the
 *   part sits on top of them and may split further at time cuts.
 *   With an alignment above 1 the exchange can cost up to alignment - 1 bytes at the top
 *   (the record moved down may have been the one that ended unaligned), so it is not used.
 *
 * Zero-byte records take no memory: they get offset 0 and no part.
 */
export interface Part {
  /** Record indices of the part, ascending. */
  readonly records: number[];
  /** Where the part's packing starts: the stacked records of its ancestors lie below. */
  readonly base: number;
}

export interface Decomposition {
  readonly parts: Part[];
  /** Offsets already fixed: stacked and zero-byte records (NaN for records of a part). */
  readonly fixed: Float64Array;
  /** Highest end among the fixed records (real sizes). */
  readonly fixedTop: number;
}

export function decompose(records: readonly TensorUsageRecord[], alignment: number): Decomposition {
  const n = records.length;
  const fixed = new Float64Array(n).fill(NaN);
  let fixedTop = 0;
  const parts: Part[] = [];
  const all: number[] = [];
  for (let i = 0; i < n; i++) {
    if (records[i].size === 0) fixed[i] = 0;
    else all.push(i);
  }
  // A worklist, not recursion: nested stacks can be thousands deep.
  const work: Part[] = [];
  const firstOf = (i: number): number => records[i].first;
  const lastOf = (i: number): number => records[i].last;
  for (const component of splitAtCuts(firstOf, lastOf, all)) work.push({ records: component, base: 0 });
  while (work.length > 0) {
    const part = work.pop()!;
    if (part.records.length === 1 || alignment > 1) {
      parts.push(part);
      continue;
    }
    let start = Infinity;
    let end = -Infinity;
    for (const i of part.records) {
      start = Math.min(start, records[i].first);
      end = Math.max(end, records[i].last);
    }
    let base = part.base;
    const rest: number[] = [];
    for (const i of part.records) {
      if (records[i].first === start && records[i].last === end) {
        fixed[i] = base;
        base = alignUp(base + records[i].size, alignment);
        fixedTop = Math.max(fixedTop, fixed[i] + records[i].size);
      } else {
        rest.push(i);
      }
    }
    if (rest.length === part.records.length) {
      // Nothing to stack; the part did not split before (it is one component), so it is a leaf.
      parts.push(part);
      continue;
    }
    for (const component of splitAtCuts(firstOf, lastOf, rest)) work.push({ records: component, base });
  }
  parts.sort((a, b) => a.records[0] - b.records[0]);
  return { parts, fixed, fixedTop };
}

/**
 * Groups `subset` into maximal runs of time where some record is live between any two
 * neighbouring operators: the pieces a time cut leaves, in time order, each ascending.
 * `first` and `last` give a record's first and last operator (decompose.ts reads the
 * records, cut-rebuild.ts its dense points).
 */
export function splitAtCuts(first: (i: number) => number, last: (i: number) => number, subset: readonly number[]): number[][] {
  const order = subset.slice().sort((a, b) => first(a) - first(b) || a - b);
  const components: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const i of order) {
    if (current.length > 0 && first(i) > reach) {
      components.push(current.sort((a, b) => a - b));
      current = [];
      reach = -Infinity;
    }
    current.push(i);
    reach = Math.max(reach, last(i));
  }
  if (current.length > 0) components.push(current.sort((a, b) => a - b));
  return components;
}
