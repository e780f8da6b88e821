import type { OffsetsPlanner } from '../planner.ts';
import { greedyBySize } from './greedy-by-size.ts';
import { stripPackingBestFit } from './strip-packing-best-fit.ts';

/**
 * The paper's recommendation for offsets (Pisarchyk & Lee 2020): plan with
 * Greedy by Size and with Strip Packing Best-fit before the first inference and keep the
 * smaller arena (Greedy by Size on ties).
 */
export const bestOf: OffsetsPlanner = {
  id: 'offsets/best-of',
  approach: 'offsets',
  title: 'Best of Greedy by Size and Strip Packing Best-fit',
  citation: 'Pisarchyk & Lee 2020, recommendation for offset calculation',
  complexity: 'n^2',
  plan(problem, options) {
    const bySize = greedyBySize.plan(problem, options);
    const strip = stripPackingBestFit.plan(problem, options);
    return strip.footprint < bySize.footprint ? strip : bySize;
  },
};
