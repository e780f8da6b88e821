import type { Problem } from '../../core/problem.ts';

/**
 * How weights reach the buffer: 'overlapped' (FlexNN) lets the loader thread read a weight
 * as soon as nothing still needed lies where it goes, while the compute thread works on
 * earlier layers; 'on-demand' (the baseline) reads each layer's weights when its turn comes,
 * with the compute thread waiting, so that loading and computing never overlap.
 */
export type Loading = 'overlapped' | 'on-demand';
export const LOADINGS: readonly Loading[] = ['overlapped', 'on-demand'];

/**
 * The loader's work for one inference, in the order it does it, and what each side waits
 * for (FlexNN's dependency-based synchronisation, section 4): load(i) before compute(i);
 * compute(j) before load(k) when k's bytes overlap memory that j still uses.
 */
export interface LoadSchedule {
  /** Per load, in loading order: the weight record it fills. */
  readonly records: readonly number[];
  readonly fileOffsets: Float64Array;
  /** Byte offsets in the plan's buffer. */
  readonly bufferOffsets: Float64Array;
  readonly bytes: Float64Array;
  /** Per load: compute steps of this inference that must have finished before it may start. */
  readonly after: Int32Array;
  /** Per step: loads of this inference that must have finished before the step computes. */
  readonly loadsBefore: Int32Array;
}

/**
 * Loads in order of their plan's load step (then layer, then record), which is the order
 * FlexNN's loader reads them (on demand: in layer order). A load waits, in 'overlapped' loading, for every step up to
 * the last one that uses memory it overwrites: the records whose bytes overlap its own and
 * whose occupancy ends before its load step (anything occupied at the same time lies
 * elsewhere: the verifier saw to it). In 'on-demand' loading it waits for every step
 * before its layer.
 */
export function loadSchedule(problem: Problem, offsets: readonly number[], loadSteps: readonly number[] | undefined, fileOffsets: Float64Array, loading: Loading): LoadSchedule {
  const { records } = problem;
  // On demand, a load waits for its layer's turn, so loads go in layer order whatever the plan's load steps.
  const start = (i: number): number => (loading === 'on-demand' ? records[i].first : (loadSteps?.[i] ?? records[i].first));
  const weights = records.map((_, i) => i).filter((i) => records[i].kind === 'weight' && records[i].size > 0);
  weights.sort((a, b) => start(a) - start(b) || records[a].first - records[b].first || a - b);
  const n = weights.length;
  const schedule = {
    records: weights,
    fileOffsets: new Float64Array(n),
    bufferOffsets: new Float64Array(n),
    bytes: new Float64Array(n),
    after: new Int32Array(n),
    loadsBefore: new Int32Array(problem.operatorCount),
  };
  // Every record by offset, to find those under a weight without looking at all of them.
  const byOffset = records
    .map((_, i) => i)
    .filter((i) => records[i].size > 0)
    .sort((a, b) => offsets[a] - offsets[b]);
  weights.forEach((w, position) => {
    const record = records[w];
    schedule.fileOffsets[position] = fileOffsets[w];
    schedule.bufferOffsets[position] = offsets[w];
    schedule.bytes[position] = record.size;
    let after = 0;
    if (loading === 'on-demand') {
      after = record.first;
    } else {
      const end = offsets[w] + record.size;
      for (const r of byOffset) {
        if (offsets[r] >= end) break;
        if (offsets[r] + records[r].size > offsets[w] && records[r].last < start(w)) after = Math.max(after, records[r].last + 1);
      }
    }
    schedule.after[position] = after;
    schedule.loadsBefore[record.first] = Math.max(schedule.loadsBefore[record.first], position + 1);
  });
  // The loader works in order: a step that needs load p needs every load before it too.
  for (let step = 1; step < problem.operatorCount; step++) schedule.loadsBefore[step] = Math.max(schedule.loadsBefore[step], schedule.loadsBefore[step - 1]);
  return schedule;
}
