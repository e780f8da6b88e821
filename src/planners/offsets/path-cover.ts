import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { denseTime } from '../../core/dense-time.ts';
import { MinHeap } from '../../core/min-heap.ts';
import { offsetsPlan } from '../../core/plans.ts';
import { Skyline } from '../../core/skyline.ts';
import type { OffsetsPlanner } from '../planner.ts';

/**
 * LeapMind's path-cover order (2021 blog): split the records into the fewest groups of
 * pairwise non-overlapping lifetimes (in order of first use, join the group that freed
 * up earliest, else open a group; optimal, the group count is the maximum overlap), then
 * place group by group, each record on top of the skyline over its lifetime. Arena
 * <= 2 W max_size, W the path cover number of the graph.
 */
export const pathCover: OffsetsPlanner = {
  id: 'offsets/path-cover',
  approach: 'offsets',
  title: 'Path Cover',
  citation: 'LeapMind 2021, "Solving buffer allocation as a path cover problem"',
  complexity: 'n log n',
  plan(problem, options) {
    const alignment = checkAlignment(options?.alignment);
    const { records } = problem;
    const byFirst = records.map((_, i) => i).sort((a, b) => records[a].first - records[b].first);
    const groups: number[][] = [];
    const freed = new MinHeap<{ last: number; group: number }>((a, b) => a.last < b.last || (a.last === b.last && a.group < b.group));
    for (const i of byFirst) {
      const top = freed.peek();
      let group: number;
      if (top !== undefined && top.last < records[i].first) {
        freed.pop();
        group = top.group;
      } else {
        group = groups.push([]) - 1;
      }
      groups[group].push(i);
      freed.push({ last: records[i].last, group });
    }
    const dense = denseTime(records);
    const skyline = new Skyline(dense.points);
    const offsets = new Float64Array(records.length);
    for (const group of groups) {
      for (const i of group) {
        offsets[i] = skyline.place(dense.first[i], dense.last[i], records[i].size, (h) => alignUp(h, alignment));
      }
    }
    return offsetsPlan(problem, offsets);
  },
};
