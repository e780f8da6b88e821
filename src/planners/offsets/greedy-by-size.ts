import { bySizeDescending, inTieOrder } from '../first-use-order.ts';
import type { OffsetsPlanner } from '../planner.ts';
import { placeByGapSearch } from './gap-search.ts';

/**
 * Greedy by Size for Offset Calculation (paper, Algorithm 3; TFLite's
 * GreedyBySizeAssignment): records in non-increasing size (ties: record order), each put
 * in the smallest gap that fits between the placed records it conflicts with, else above
 * them.
 */
export const greedyBySize: OffsetsPlanner = {
  id: 'offsets/greedy-by-size',
  approach: 'offsets',
  title: 'Greedy by Size',
  citation: 'Pisarchyk & Lee 2020, Algorithm 3',
  complexity: 'n log n',
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => placeByGapSearch(ordered, options, (place) => bySizeDescending(ordered.records).forEach(place))),
};
