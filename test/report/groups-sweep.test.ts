import { describe, expect, it } from 'vitest';
import type { ParallelGroupsConfig } from '../../src/experiments/studies/parallel-groups-config.ts';
import { sweepCells, sweepFinding, sweepMarkdown, sweptNetworks } from '../../src/report/groups-sweep.ts';
import { CONFIG, sweepCell, thesisLikeRows } from './groups-cells.ts';

// ResNeXt's table as the thesis has it on a CPU twice as slow: 1 group 454 [450, 458] ms, 2 groups 438 [434, 442].
const TABLE = thesisLikeRows('ResNeXt', 2);

describe('the sweep of groups per layer', () => {
  it("takes the table's 1- and 2-group rows as points of the sweep, in the sweep's order", () => {
    const cells = [...TABLE, sweepCell('ResNeXt', 8, 460), sweepCell('ResNeXt', 4, 450)];
    expect(sweepCells(CONFIG, cells, 'ResNeXt').map((p) => [p.groups, p.cell.report!.latencyMs.median])).toEqual([
      [1, 454],
      [2, 438],
      [4, 450],
      [8, 460],
    ]);
    expect(sweepCells(CONFIG, cells, 'GoogLeNet')).toEqual([]);
    expect(sweepMarkdown(CONFIG, cells)).toMatch(/^\| ResNeXt \| 4 \| 85 \| 33 \| 9\.00 \| 10\.00 \| 450\.0 \| \[449\.0, 451\.0\] \| 60% \| 110\.00 \|$/m);
  });

  it("holds where 2 groups is below every other number of groups, with the thesis' 1 against 2 groups beside", () => {
    const finding = sweepFinding(CONFIG, [...TABLE, sweepCell('ResNeXt', 4, 450, [446, 454]), sweepCell('ResNeXt', 8, 460, [455, 465])], 'ResNeXt')!;
    expect(finding).toEqual({
      network: 'ResNeXt',
      finding: '2 groups is the fastest of 1, 2, 4, 8 groups per layer.',
      verdict: 'holds',
      evidence: 'Ours: 438.0 [434.0, 442.0] ms, below every other interval. The thesis (1 and 2 groups only): 219 ± 2 against 227 ± 2 ms, faster.',
    });
  });

  it('does not hold, naming the faster one, where another number of groups is apart below', () => {
    const finding = sweepFinding(CONFIG, [...TABLE, sweepCell('ResNeXt', 4, 420, [415, 425]), sweepCell('ResNeXt', 8, 460, [455, 465])], 'ResNeXt')!;
    expect(finding.verdict).toBe('does not hold');
    expect(finding.evidence).toMatch(/^Ours: 438\.0 \[434\.0, 442\.0\] ms; not so: 4 groups ran faster \(intervals apart\)\./);
  });

  it('cannot tell where an interval overlaps, and waits where too few points ran', () => {
    const tied = sweepFinding(CONFIG, [...TABLE, sweepCell('ResNeXt', 4, 450, [446, 454]), sweepCell('ResNeXt', 8, 440, [436, 444])], 'ResNeXt')!;
    expect(tied.verdict).toBe('inconclusive');
    expect(tied.evidence).toMatch(/not told apart from 8 groups \(intervals overlap\)/);
    const alone = sweepFinding(
      CONFIG,
      TABLE.filter((c) => c.row === '2-groups'),
      'ResNeXt',
    )!;
    expect(alone).toMatchObject({ verdict: 'pending', finding: '2 groups is the fastest of 2 groups per layer.' });
    expect(alone.evidence).toMatch(/^Ours: too few points of the sweep ran\. Not run: 1 group, 4 groups, 8 groups\./);
  });

  it("gives the thesis' own figures where they show no difference (GoogLeNet: 78 ± 1 against 78 ± 2 ms)", () => {
    const google = thesisLikeRows('GoogLeNet', 4);
    expect(sweepFinding(CONFIG, google, 'GoogLeNet')!.evidence).toMatch(/The thesis \(1 and 2 groups only\): 78 ± 1 against 78 ± 2 ms, no difference at its spread\.$/);
  });

  it('reads the swept networks of runs made before the sweep covered every network', () => {
    const old = { ...CONFIG, sweep: { network: 'ResNeXt', groups: [1, 2], planner: 'offsets/greedy-by-size' } } as unknown as ParallelGroupsConfig;
    expect(sweptNetworks(old)).toEqual(['ResNeXt']);
    expect(sweptNetworks(CONFIG)).toEqual(CONFIG.networks.map((n) => n.label));
  });
});
