import { checkAlignment } from '../../core/alignment.ts';
import { offsetsPlan } from '../../core/plans.ts';
import { visitByBreadth } from '../breadth-order.ts';
import type { OffsetsPlanner } from '../planner.ts';
import { createGapSearch } from './gap-search.ts';

/**
 * Greedy by Breadth for Offset Calculation (paper, section 4): operators in
 * non-increasing breadth, their unplaced tensors largest first, each placed by the gap
 * search of Algorithm 3.
 */
export const greedyByBreadth: OffsetsPlanner = {
  id: 'offsets/greedy-by-breadth',
  approach: 'offsets',
  title: 'Greedy by Breadth',
  citation: 'Pisarchyk & Lee 2020, section 4',
  complexity: 'n log n',
  plan(problem, options) {
    const alignment = checkAlignment(options?.alignment);
    const search = createGapSearch(problem, alignment);
    const offsets = new Float64Array(problem.records.length);
    visitByBreadth(problem, (i) => {
      offsets[i] = search.bestFit(i);
      search.place(i, offsets[i]);
    });
    return offsetsPlan(problem, offsets);
  },
};
