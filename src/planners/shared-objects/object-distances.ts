import { positionalMaxima } from '../../core/bounds.ts';
import { sharedObjectsPlan, type SharedObjectsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import type { TensorUsageRecord } from '../../core/records.ts';
import { withAlignedSizes, type PlannerOptions } from '../planner.ts';

/**
 * The stage of each record for Greedy by Size Improved: the index of the last positional
 * maximum at least as large as its size (stage 0 holds the tensors as large as the
 * largest maximum).
 */
export function stagesOf(problem: Problem): number[] {
  const maxima = positionalMaxima(problem);
  return problem.records.map((r) => {
    let position = 0;
    while (position < maxima.length && maxima[position] >= r.size) position++;
    return position - 1;
  });
}

/**
 * The bookkeeping of TFLite's GreedyBySizeDistPriority: the shared objects made so far
 * and, for every unassigned tensor, its idle gap to each object it could still join
 * (operators between it and the nearest tensor of that object) and its best object.
 *
 * The best object changes as TFLite's does: an assignment makes the placed object best
 * only on a strictly smaller gap, and when the best object becomes unusable the best is
 * searched again over all objects, the lowest object id winning a tie.
 */
export class ObjectDistances {
  readonly objectIds: number[];
  readonly objectSizes: number[] = [];
  /** Smallest gap to a usable object; Infinity when there is none (a new object). */
  readonly bestGap: Float64Array;
  readonly bestObject: Int32Array;
  /** Per tensor: gap to every object it does not conflict with. */
  private readonly gaps: Map<number, number>[];
  /** Unassigned tensors, in record order (compacted as tensors are assigned). */
  private unassigned: number[];

  constructor(private readonly records: readonly TensorUsageRecord[]) {
    const n = records.length;
    this.objectIds = new Array<number>(n).fill(-1);
    this.bestGap = new Float64Array(n).fill(Infinity);
    this.bestObject = new Int32Array(n).fill(-1);
    this.gaps = Array.from({ length: n }, () => new Map());
    this.unassigned = records.map((_, i) => i);
  }

  isAssigned(tensor: number): boolean {
    return this.objectIds[tensor] >= 0;
  }

  /** Puts `tensor` into its best object (grown if needed), or a new one when it has none. */
  assign(tensor: number): void {
    const { records, objectIds, objectSizes, bestGap, bestObject, gaps } = this;
    const newObject = bestGap[tensor] === Infinity;
    const object = newObject ? objectSizes.push(records[tensor].size) - 1 : bestObject[tensor];
    objectSizes[object] = Math.max(objectSizes[object], records[tensor].size);
    objectIds[tensor] = object;

    const placed = records[tensor];
    let kept = 0;
    for (const i of this.unassigned) {
      if (objectIds[i] >= 0) continue;
      this.unassigned[kept++] = i;
      const known = gaps[i].get(object);
      // Already ruled out: the tensor conflicts with something in this object.
      if (!newObject && known === undefined) continue;
      const r = records[i];
      const gap = r.last < placed.first ? placed.first - r.last : placed.last < r.first ? r.first - placed.last : Infinity;
      if (gap === Infinity) {
        if (!newObject) {
          gaps[i].delete(object);
          if (bestObject[i] === object) this.recomputeBest(i);
        }
      } else {
        gaps[i].set(object, known === undefined ? gap : Math.min(known, gap));
        if (gap < bestGap[i]) {
          bestGap[i] = gap;
          bestObject[i] = object;
        }
      }
    }
    this.unassigned.length = kept;
  }

  private recomputeBest(i: number): void {
    const { bestGap, bestObject } = this;
    bestGap[i] = Infinity;
    bestObject[i] = -1;
    for (const [object, gap] of this.gaps[i]) {
      if (gap < bestGap[i] || (gap === bestGap[i] && object < bestObject[i])) {
        bestGap[i] = gap;
        bestObject[i] = object;
      }
    }
  }
}

/** What a reading of Greedy by Size Improved picks its next tensor from. */
export interface StagedTensors {
  /** The records, sizes aligned. */
  readonly records: readonly TensorUsageRecord[];
  readonly stage: readonly number[];
  readonly distances: ObjectDistances;
}

/**
 * The frame of Greedy by Size Improved, shared by its readings: stages, objects and gaps;
 * `picker(frame)` returns the function that chooses the next unassigned tensor, called
 * once per tensor, and each choice is assigned.
 */
export function assignByStages(problem: Problem, options: PlannerOptions | undefined, picker: (frame: StagedTensors) => () => number): SharedObjectsPlan {
  const aligned = withAlignedSizes(problem, options);
  const frame = { records: aligned.records, stage: stagesOf(aligned), distances: new ObjectDistances(aligned.records) };
  const next = picker(frame);
  for (let step = 0; step < aligned.records.length; step++) frame.distances.assign(next());
  return sharedObjectsPlan(frame.distances.objectIds, frame.distances.objectSizes);
}
