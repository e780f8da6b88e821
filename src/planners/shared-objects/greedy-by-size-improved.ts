import { inTieOrder } from '../first-use-order.ts';
import type { SharedObjectsPlanner } from '../planner.ts';
import { assignByStages, type StagedTensors } from './object-distances.ts';

/**
 * Greedy by Size Improved (paper, section 3.4) exactly as the authors' code computes it
 * (TFLite's GreedyBySizeDistPriorityAssignment, the default for GPU shared objects).
 *
 * Each tensor belongs to a stage: the index of the last positional maximum at least as
 * large as it. Repeatedly, among unassigned tensors, pick the one of the earliest stage,
 * then the one whose best object leaves the smallest idle gap (operators between it and
 * the nearest tensor already in that object; no usable object: an infinite gap), then the
 * largest, then the lowest record index; put it in its best object, grown if needed, or
 * with none a new object. Within a stage the distance decides before the size, as the
 * paper's "pair with the smallest gap" and TFLite's priority both read.
 * `greedy-by-size-improved-size-first.ts` is the variant that looks at size first.
 * O(n^2) like TFLite's.
 */
export const greedyBySizeImproved: SharedObjectsPlanner = {
  id: 'shared-objects/greedy-by-size-improved',
  approach: 'shared-objects',
  title: 'Greedy by Size Improved',
  citation: 'Pisarchyk & Lee 2020, section 3.4 (TFLite GreedyBySizeDistPriority)',
  complexity: 'n^2',
  // A gap per (tensor, object) pair: about 10 s and 300 MB at 10k records here.
  maxRecords: 20_000,
  plan: (problem, options) => inTieOrder(problem, options, (ordered) => assignByStages(ordered, options, gapFirst)),
};

/** TFLite's priority: earliest stage, then smallest gap, then largest size, then lowest index. */
function gapFirst({ records, stage, distances }: StagedTensors): () => number {
  // The next tensor always comes from the earliest stage with unassigned tensors: scan
  // only that stage's tensors, in record order, so a full tie goes to the lowest index.
  const byStage = records.map((_, i) => i).sort((a, b) => stage[a] - stage[b] || a - b);
  let stageStart = 0;
  return () => {
    while (distances.isAssigned(byStage[stageStart])) stageStart++;
    const current = stage[byStage[stageStart]];
    let chosen = -1;
    for (let k = stageStart; k < byStage.length && stage[byStage[k]] === current; k++) {
      const i = byStage[k];
      if (distances.isAssigned(i)) continue;
      if (chosen < 0 || distances.bestGap[i] < distances.bestGap[chosen] || (distances.bestGap[i] === distances.bestGap[chosen] && records[i].size > records[chosen].size)) {
        chosen = i;
      }
    }
    return chosen;
  };
}
