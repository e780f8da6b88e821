import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { denseTime } from '../../core/dense-time.ts';
import { offsetsPlan } from '../../core/plans.ts';
import { lifetime } from '../../core/records.ts';
import { Skyline } from '../../core/skyline.ts';
import type { OffsetsPlanner } from '../planner.ts';

/**
 * LeapMind's first order (2021 blog): records by (lifetime, size), both non-increasing,
 * ties in record order; each goes on top of the skyline over its lifetime. On chains of
 * equal keys records climb like a staircase, which is what the path-cover order fixes.
 */
export const skylineByLifetime: OffsetsPlanner = {
  id: 'offsets/skyline-by-lifetime',
  approach: 'offsets',
  title: 'Skyline by Lifetime',
  citation: 'LeapMind 2021, "Solving buffer allocation as a path cover problem" (old order)',
  complexity: 'n log n',
  plan(problem, options) {
    const alignment = checkAlignment(options?.alignment);
    const { records } = problem;
    const dense = denseTime(records);
    const skyline = new Skyline(dense.points);
    const order = records.map((_, i) => i).sort((a, b) => lifetime(records[b]) - lifetime(records[a]) || records[b].size - records[a].size);
    const offsets = new Float64Array(records.length);
    for (const i of order) {
      offsets[i] = skyline.place(dense.first[i], dense.last[i], records[i].size, (h) => alignUp(h, alignment));
    }
    return offsetsPlan(problem, offsets);
  },
};
