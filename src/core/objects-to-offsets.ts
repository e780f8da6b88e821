import { alignUp } from './alignment.ts';
import { offsetsPlan, type OffsetsPlan, type SharedObjectsPlan } from './plans.ts';
import type { Problem } from './problem.ts';

/**
 * Lays shared objects out contiguously in id order (each object starts where the
 * previous one ends, rounded up to the alignment); every record takes its object's
 * offset. This is how the paper puts shared-objects strategies into its offsets table.
 */
export function objectsToOffsets(problem: Problem, plan: SharedObjectsPlan, alignment = 1): OffsetsPlan {
  const objectOffsets = new Array<number>(plan.objectSizes.length);
  let next = 0;
  plan.objectSizes.forEach((size, id) => {
    objectOffsets[id] = alignUp(next, alignment);
    next = objectOffsets[id] + size;
  });
  return offsetsPlan(
    problem,
    plan.objectIds.map((id) => objectOffsets[id]),
  );
}
