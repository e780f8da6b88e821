import { inTieOrder } from '../first-use-order.ts';
import type { SharedObjectsPlanner } from '../planner.ts';
import { assignByStages, type StagedTensors } from './object-distances.ts';

/**
 * A variant of Greedy by Size Improved (this project's first reading of section 3.4, not
 * the authors' code): within a stage the largest tensor goes first and the idle gap only
 * breaks ties between tensors of equal size: order (stage, size, gap, record index). It
 * differs from `greedy-by-size-improved` (TFLite: stage, gap, size, index) on four of the
 * six networks, and wins on DeepLab v3. Objects and gaps evolve as in TFLite.
 */
export const greedyBySizeImprovedSizeFirst: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-by-size-improved-size-first',
  approach: 'shared-objects',
  title: 'Greedy by Size Improved, size before gap (variant)',
  citation: 'this project: section 3.4 read with size before gap',
  complexity: 'n^2',
  maxRecords: 20_000,
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => assignByStages(ordered, options, sizeFirst)),
};

/** Earliest stage, then largest size, then smallest gap, then lowest index. */
function sizeFirst({ records, stage, distances }: StagedTensors): () => number {
  // Stage and size never change, so the tensor picked next is always in the first
  // (stage, size) group with unassigned tensors: only that group is searched.
  const byPriority = records.map((_, i) => i).sort((a, b) => stage[a] - stage[b] || records[b].size - records[a].size || a - b);
  let groupStart = 0;
  return () => {
    while (distances.isAssigned(byPriority[groupStart])) groupStart++;
    const head = byPriority[groupStart];
    let chosen = -1;
    for (let k = groupStart; k < byPriority.length; k++) {
      const i = byPriority[k];
      if (stage[i] !== stage[head] || records[i].size !== records[head].size) break;
      if (!distances.isAssigned(i) && (chosen < 0 || distances.bestGap[i] < distances.bestGap[chosen])) chosen = i;
    }
    return chosen;
  };
}
