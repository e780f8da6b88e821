// A worked example of bringing your own strategy (README, "Adding a strategy").
// An experiment names this file in "planners"; memplan loads it, checks its shape, and
// verifies every plan it returns like any built-in strategy's.
// It imports the package by name, as a planner in a project of your own would
// (`npm install` memplan-bench, or a path to a clone of it).
import { alignUp, checkAlignment, offsetsPlan, type OffsetsPlanner } from 'memplan-bench';

/** First fit in order of first use: each record at the lowest offset free over its lifetime. */
const firstFit: OffsetsPlanner = {
  id: 'offsets/first-fit',
  approach: 'offsets',
  title: 'First Fit (example)',
  citation: 'README worked example',
  complexity: 'n^2',
  plan(problem, options) {
    const alignment = checkAlignment(options?.alignment);
    const { records } = problem;
    const order = records.map((_, i) => i).sort((a, b) => records[a].first - records[b].first);
    const offsets = new Array<number>(records.length).fill(0);
    const placed: number[] = [];
    for (const i of order) {
      // Live neighbours sorted by offset; slide up past each one we would overlap.
      const live = placed.filter((j) => !(records[j].last < records[i].first || records[i].last < records[j].first)).sort((a, b) => offsets[a] - offsets[b]);
      let offset = 0;
      for (const j of live) {
        if (offset + records[i].size <= offsets[j]) break;
        offset = Math.max(offset, alignUp(offsets[j] + records[j].size, alignment));
      }
      offsets[i] = offset;
      placed.push(i);
    }
    return offsetsPlan(problem, offsets);
  },
};

export default firstFit;
