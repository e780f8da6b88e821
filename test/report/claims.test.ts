import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../src/experiments/result.ts';
import type { TieOrderStudy } from '../../src/experiments/tie-orders.ts';
import { claimsToMarkdown, evaluateClaims } from '../../src/report/claims.ts';

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
      'shared-objects/greedy-in-order@deeplab-v3': 11.2,
      'shared-objects/min-cost-flow@deeplab-v3': 11.2,
    }),
    offsets: cells('offsets', OFF, {
      'offsets/greedy-by-size@deeplab-v3': 10.77,
      'offsets/greedy-by-breadth@deeplab-v3': 10.77,
      'offsets/strip-packing-best-fit@deeplab-v3': 10,
      'shared-objects/greedy-in-order@deeplab-v3': 14.4,
      'offsets/strip-packing-best-fit@blazeface': 10.9,
    }),
  };

  /** A latency cell of the first offsets model: its median and the 95% interval of it. */
  const latency = (planner: string, median: number, ci95: [number, number]): CellResult =>
    ({
      ...paperWorld.offsets[0],
      planner,
      latencyMs: { runs: 20, median, min: median, max: median, p90: median, ci95 },
      backend: 'cpu',
    }) satisfies CellResult;
  it("are decided by the numbers: all hold where the paper's figures hold, 7 stays pending", () => {
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
      sharedObjects: paperWorld.sharedObjects.map((c) => (c.model === 'zoo:posenet' && c.planner === 'shared-objects/greedy-by-size-improved' ? { ...c, footprint: 12 * MiB } : c)),
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
    const exact = cells('shared-objects', ['shared-objects/exact'], { 'shared-objects/exact@deeplab-v3': 10.5, 'shared-objects/exact@mobilenet-v2': 10.4 }).map((c) => ({
      ...c,
      optimal: true,
      bound: c.footprint,
    }));
    const claims = evaluateClaims({ ...paperWorld, sharedObjects: [...paperWorld.sharedObjects, ...exact] });
    expect(claims[0].verdict).toBe('holds');
    expect(claims[2].verdict).toBe('holds');
    expect(claims[2].evidence).toMatch(/The optimum over the lower bound: .*deeplab-v3 1\.0500x/);
  });

  it('grade magnitudes: ours beside the paper\'s, "in direction" when only the sign agrees', () => {
    // Greedy by Size 35% below Greedy on DeepLab v3 (paper: 25%): the direction holds, the magnitude does not.
    const larger = { ...paperWorld, offsets: paperWorld.offsets.map((c) => (c.planner === 'shared-objects/greedy-in-order' && c.model === 'zoo:deeplab-v3' ? { ...c, footprint: 16.6 * MiB } : c)) };
    const five = evaluateClaims(larger)[4];
    expect(five.verdict).toBe('holds in direction');
    expect(five.evidence).toMatch(/Up to 35\.1% \(paper: 25%\) less than Greedy/);
    // Strip Packing Best-fit worse than Greedy by Size on DeepLab v3: claim 6 fails outright.
    const reversed = { ...paperWorld, offsets: paperWorld.offsets.map((c) => (c.planner === 'offsets/strip-packing-best-fit' && c.model === 'zoo:deeplab-v3' ? { ...c, footprint: 11 * MiB } : c)) };
    expect(evaluateClaims(reversed)[5].verdict).toBe('does not hold');
  });

  it('decide claim 7 from latency cells: significant speed-ups only, the source named', () => {
    const fast = evaluateClaims({
      ...paperWorld,
      latency: [latency('shared-objects/naive', 110, [109, 111]), latency('offsets/greedy-by-size', 100, [99, 101])],
      latencySource: 'Run on a test machine.',
    })[6];
    expect(fast.verdict).toBe('holds');
    expect(fast.evidence).toMatch(/\+10\.0%.*Run on a test machine\./);
    const overlapping = evaluateClaims({ ...paperWorld, latency: [latency('shared-objects/naive', 101, [95, 105]), latency('offsets/greedy-by-size', 100, [96, 104])] })[6];
    expect(overlapping.verdict).toBe('inconclusive');
    expect(overlapping.evidence).toMatch(/\+1\.0% \(intervals overlap: inconclusive\)\. Inconclusive: on no network are the two intervals apart\./);
    // Apart, but slower inside the plan: the claim fails outright.
    const slower = evaluateClaims({ ...paperWorld, latency: [latency('shared-objects/naive', 100, [99, 101]), latency('offsets/greedy-by-size', 110, [109, 111])] })[6];
    expect(slower.verdict).toBe('does not hold');
    // Faster on one network and slower on another, both apart: the run cannot decide.
    const mixed = evaluateClaims({
      ...paperWorld,
      latency: [
        latency('shared-objects/naive', 110, [109, 111]),
        latency('offsets/greedy-by-size', 100, [99, 101]),
        { ...latency('shared-objects/naive', 100, [99, 101]), model: 'zoo:posenet', modelLabel: 'PoseNet' },
        { ...latency('offsets/greedy-by-size', 120, [119, 121]), model: 'zoo:posenet', modelLabel: 'PoseNet' },
      ],
    })[6];
    expect(mixed.verdict).toBe('inconclusive');
    expect(mixed.evidence).toMatch(/Inconclusive: the networks disagree, each with its intervals apart: reuse is faster on .+ and slower on PoseNet\./);
  });

  it('call claim 7 inconclusive when the machine was busy while timing, whatever the figures', () => {
    const busy = evaluateClaims({
      ...paperWorld,
      latency: [latency('shared-objects/naive', 110, [109, 111]), latency('offsets/greedy-by-size', 100, [99, 101])],
      latencyBusy: 'the machine was busy while timing (other processes used 1.20 of a core on average over 300 s).',
    })[6];
    expect(busy.verdict).toBe('inconclusive');
    expect(busy.evidence).toMatch(/\+10\.0%\. Inconclusive: the machine was busy while timing \(other processes used 1\.20 of a core/);
  });

  it('count the verdicts of claims 1-6 under every tie order of the studies', () => {
    // Two draws: in the second, Greedy by Size Improved is worse on PoseNet (claim 1 fails there).
    const study = (cells: readonly CellResult[], approach: 'offsets' | 'shared-objects'): TieOrderStudy => ({
      experiment: approach,
      approach,
      seed: 1,
      drawCount: 2,
      cells: cells.map((c) => ({
        model: c.model,
        modelLabel: c.modelLabel,
        planner: c.planner,
        plannerTitle: c.plannerTitle,
        lowerBound: c.lowerBounds.sharedObjects,
        stable: c.footprint,
        draws: [c.footprint, c.model === 'zoo:posenet' && c.planner === 'shared-objects/greedy-by-size-improved' ? 12 * MiB : c.footprint],
      })),
    });
    const claims = evaluateClaims({ ...paperWorld, tieOrders: { sharedObjects: study(paperWorld.sharedObjects, 'shared-objects'), offsets: study(paperWorld.offsets, 'offsets') } });
    expect(claims[0].underTieOrders).toEqual({ draws: 2, holds: 1, 'does not hold': 1 });
    expect(claims[3].underTieOrders).toEqual({ draws: 2, holds: 2 });
    expect(claims[6].underTieOrders).toBeUndefined();
    const markdown = claimsToMarkdown(claims);
    expect(markdown).toMatch(/Under 2 random tie orders/);
    expect(markdown).toMatch(/holds under 1, does not hold under 1/);
    expect(markdown).toMatch(/holds under all 2/);
  });
});
