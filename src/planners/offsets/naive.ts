import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { offsetsPlan } from '../../core/plans.ts';
import type { OffsetsPlanner } from '../planner.ts';

/** Every tensor its own region, one after another in record order. */
export const naive: OffsetsPlanner = {
  id: 'offsets/naive',
  approach: 'offsets',
  title: 'Naive',
  citation: 'Pisarchyk & Lee 2020 (baseline: no sharing)',
  complexity: 'n',
  plan(problem, options) {
    const alignment = checkAlignment(options?.alignment);
    let next = 0;
    const offsets = problem.records.map((r) => {
      const offset = alignUp(next, alignment);
      next = offset + r.size;
      return offset;
    });
    return offsetsPlan(problem, offsets);
  },
};
