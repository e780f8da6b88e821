import { visitByBreadth } from '../breadth-order.ts';
import { inTieOrder } from '../first-use-order.ts';
import type { OffsetsPlanner } from '../planner.ts';
import { placeByGapSearch } from './gap-search.ts';

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
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => placeByGapSearch(ordered, options, (place) => visitByBreadth(ordered, place, options?.tieSeed))),
};
