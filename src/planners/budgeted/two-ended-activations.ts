import type { Problem } from '../../core/problem.ts';

/**
 * FlexNN's first step (Algorithm 1; `schedule_naive` of its flexnnschedule.h): activations
 * before anything else, at the two ends of the buffer, so that the middle stays one free
 * region for weights and intermediates. Activations are taken in order of their first
 * operator; those that start at an even operator stack up from the bottom, those at an odd
 * one down from the top (alternating ends layer by layer, since a layer's output is read
 * by the next). At each new operator an end starts again right past the activations of
 * that end that are still live (dead ones leave their space to the next layers). The buffer
 * is `capacity` bytes; offsets are multiples of `alignment`.
 *
 * Returns every activation's offset (NaN for other records), or the first operator at
 * which the two ends meet, with the activations placed there.
 */
export type TwoEndedResult = { readonly ok: true; readonly offsets: Float64Array } | { readonly ok: false; readonly step: number; readonly records: readonly number[] };

export function placeActivationsAtBothEnds(problem: Problem, activations: readonly number[], capacity: number, alignment: number): TwoEndedResult {
  const { records } = problem;
  const offsets = new Float64Array(records.length).fill(NaN);
  const order = [...activations].sort((a, b) => records[a].first - records[b].first || a - b);
  let placedLow: number[] = [];
  let placedHigh: number[] = [];
  let low = 0;
  let high = capacity;
  let step = -1;
  let placedHere: number[] = [];
  for (const i of order) {
    const record = records[i];
    if (record.first !== step) {
      step = record.first;
      placedHere = [];
      // Each end restarts right past its own activations still live at this operator
      // (operators only grow: one that has ended is dropped for good).
      placedLow = placedLow.filter((j) => records[j].last >= step);
      placedHigh = placedHigh.filter((j) => records[j].last >= step);
      low = 0;
      for (const j of placedLow) low = Math.max(low, offsets[j] + records[j].size);
      high = capacity;
      for (const j of placedHigh) high = Math.min(high, offsets[j]);
    }
    placedHere.push(i);
    if (step % 2 === 0) {
      const offset = Math.ceil(low / alignment) * alignment;
      offsets[i] = offset;
      low = offset + record.size;
      placedLow.push(i);
    } else {
      const offset = Math.floor((high - record.size) / alignment) * alignment;
      offsets[i] = offset;
      high = offset;
      placedHigh.push(i);
    }
    // The ends met: the activations live here do not fit in the buffer together.
    if (low > high || offsets[i] < 0 || offsets[i] + record.size > capacity) return { ok: false, step, records: placedHere };
  }
  return { ok: true, offsets };
}
