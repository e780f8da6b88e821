/**
 * An operator split over threads (exec --threads): the threads take its parts, parts of one
 * operator at once, a barrier after the operator. These say which share of the
 * work a part takes; every split is of output rows, pixels, bands or column panels, so each
 * output value is computed by one part with the very sums of the whole kernel, and a split
 * run's outputs are bit-identical to one thread's.
 */

/**
 * Which share of an operator a kernel computes: part `part` of `parts`, working in band
 * `slot` of the node's scratch (its thread's: a thread runs one part at a time, so parts
 * may outnumber the threads and be taken by whichever thread is free).
 */
export interface Share {
  readonly part: number;
  readonly parts: number;
  readonly slot: number;
}

/** The whole operator, in the first band. */
export const WHOLE: Share = { part: 0, parts: 1, slot: 0 };

/** A part with nothing to do (an operator that is not split runs whole in part 0). */
export const IDLE = (): void => {};

/**
 * The contiguous share [start, end) of `total` items that part `part` of `parts` takes,
 * its bounds on multiples of `align` (the last part ends at `total`); empty when there
 * are fewer chunks than parts.
 */
export function partRange(total: number, part: number, parts: number, align = 1): { readonly start: number; readonly end: number } {
  const chunks = Math.ceil(total / align);
  const bound = (k: number): number => Math.min(total, Math.floor((chunks * k) / parts) * align);
  return { start: bound(part), end: part === parts - 1 ? total : bound(part + 1) };
}

/** Whether item `index` of a round-robin split belongs to part `part` of `parts` (bands: neighbours go to different parts). */
export function takesItem(index: number, part: number, parts: number): boolean {
  return index % parts === part;
}
