import { sharedObjectsPlan } from '../../core/plans.ts';
import { withAlignedSizes, type SharedObjectsPlanner } from '../planner.ts';

/** Every tensor its own object: the baseline every table divides by. */
export const naive: SharedObjectsPlanner = {
  id: 'shared-objects/naive',
  approach: 'shared-objects',
  title: 'Naive',
  citation: 'Pisarchyk & Lee 2020 (baseline: no sharing)',
  complexity: 'n',
  plan(problem, options) {
    const { records } = withAlignedSizes(problem, options);
    return sharedObjectsPlan(
      records.map((_, i) => i),
      records.map((r) => r.size),
    );
  },
};
