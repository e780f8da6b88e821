import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../src/experiments/result.ts';
import { evaluateClaims } from '../../src/report/claims.ts';

const MiB = 2 ** 20;
const NETWORKS = ['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface'];

/** Cells where every strategy needs `base` MiB unless `over` says otherwise. */
function cells(approach: 'offsets' | 'shared-objects', planners: string[], over: Record<string, number> = {}, bound = 10): CellResult[] {
  return NETWORKS.flatMap((network) =>
    planners.map((planner) => {
      const footprint = (over[`${planner}@${network}`] ?? bound) * MiB;
      return {
        experiment: approach,
        model: `zoo:${network}`,
        modelLabel: network,
        planner,
        plannerTitle: planner,
        plannerApproach: planner.startsWith('offsets/') ? 'offsets' : 'shared-objects',
        backend: 'plan-only',
        records: 10,
        operators: 10,
        footprint,
        naive: 105 * MiB,
        lowerBounds: { offsets: bound * MiB, sharedObjects: bound * MiB },
        ratioToLowerBound: footprint / (bound * MiB),
        ratioToNaive: footprint / (105 * MiB),
        valid: true,
        timeMs: { runs: 1, median: 1, min: 1, max: 1, mad: 0 },
      } satisfies CellResult;
    }),
  );
}

const SO = ['shared-objects/greedy-by-breadth', 'shared-objects/greedy-by-size', 'shared-objects/greedy-by-size-improved', 'shared-objects/greedy-in-order', 'shared-objects/min-cost-flow'];
const OFF = ['offsets/greedy-by-size', 'offsets/greedy-by-breadth', 'shared-objects/greedy-in-order', 'offsets/strip-packing-best-fit'];

describe('the claims', () => {
  // A world where the paper is right: figures chosen to satisfy each claim.
  const paperWorld = {
    sharedObjects: cells('shared-objects', SO, {
      'shared-objects/greedy-by-breadth@mobilenet-v2': 10.5,
      'shared-objects/greedy-by-size-improved@mobilenet-v2': 10.8,
      'shared-objects/greedy-by-size@mobilenet-v2': 11,
      'shared-objects/greedy-in-order@mobilenet-v2': 11.8,
      'shared-objects/min-cost-flow@mobilenet-v2': 11.8,
      'shared-objects/greedy-by-breadth@deeplab-v3': 11.5,
      'shared-objects/greedy-by-size@deeplab-v3': 11.5,
      'shared-objects/greedy-in-order@deeplab-v3': 11.5,
      'shared-objects/min-cost-flow@deeplab-v3': 11.5,
    }),
    offsets: cells('offsets', OFF, {
      'offsets/greedy-by-size@deeplab-v3': 10.77,
      'offsets/greedy-by-breadth@deeplab-v3': 10.77,
      'offsets/strip-packing-best-fit@deeplab-v3': 10,
      'shared-objects/greedy-in-order@deeplab-v3': 14.4,
      'offsets/strip-packing-best-fit@blazeface': 10.9,
    }),
  };

  it('are decided by the numbers: all hold where the paper\'s figures hold, 7 stays pending', () => {
    const verdicts = evaluateClaims(paperWorld).map((c) => [c.id, c.verdict]);
    expect(verdicts).toEqual([
      [1, 'holds'],
      [2, 'holds'],
      [3, 'holds'],
      [4, 'holds'],
      [5, 'holds'],
      [6, 'holds'],
      [7, 'pending'],
      [8, 'holds'],
    ]);
  });

  it('turn when the numbers turn, naming the figures', () => {
    const worse = {
      ...paperWorld,
      sharedObjects: paperWorld.sharedObjects.map((c) =>
        c.model === 'zoo:posenet' && c.planner === 'shared-objects/greedy-by-size-improved' ? { ...c, footprint: 12 * MiB } : c,
      ),
    };
    const [first, , third] = evaluateClaims(worse);
    expect(first.verdict).toBe('does not hold');
    expect(first.evidence).toMatch(/on posenet .* beats Greedy by Size Improved \(12\.000 MiB\)/);
    expect(third.verdict).toBe('holds');
    const slow = { ...paperWorld, offsets: paperWorld.offsets.map((c) => ({ ...c, timeMs: { ...c.timeMs, median: 50 } })) };
    expect(evaluateClaims(slow)[7]).toMatchObject({ verdict: 'does not hold' });
  });

  it('take an exact planner as the yardstick, not a competitor, and say where the bound is out of reach', () => {
    // The optimum beats every heuristic on DeepLab v3 and lies above the bound there.
    const exact = cells('shared-objects', ['shared-objects/exact'], { 'shared-objects/exact@deeplab-v3': 10.5, 'shared-objects/exact@mobilenet-v2': 10.4 }).map((c) => ({ ...c, optimal: true, bound: c.footprint }));
    const claims = evaluateClaims({ ...paperWorld, sharedObjects: [...paperWorld.sharedObjects, ...exact] });
    expect(claims[0].verdict).toBe('holds');
    expect(claims[2].verdict).toBe('holds');
    expect(claims[2].evidence).toMatch(/The optimum over the lower bound: .*deeplab-v3 1\.0500x/);
  });
});
