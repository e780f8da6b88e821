import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import type { GroupsCell } from '../../../src/experiments/studies/parallel-groups.ts';
import { groupsSweepChartSpec } from '../../../src/report/charts/groups-sweep-chart.ts';
import { reportStudy } from '../../../src/report/study-reports.ts';
import '../../../src/report/studies/index.ts';
import { expectCompiles, rowsOf } from '../charts/spec-data.ts';
import { CONFIG, groupsCell, sweepCell, thesisLikeRows } from '../groups-cells.ts';

const WEIGHTS = Object.fromEntries(['base', 'minimization', 'layer-wise', '1-group', '2-groups'].map((row) => [row, { weightsMiB: 95 }]));

/** ResNeXt as the thesis has it on a CPU twice as slow (weights of 95 MiB beside), with its sweep and a WebGPU look; GoogLeNet's 2 groups slower than base. */
const CELLS: GroupsCell[] = [
  ...thesisLikeRows('ResNeXt', 2, WEIGHTS),
  groupsCell({ network: 'ResNeXt', row: '2-groups-best', schedule: 'groups:2', backend: 'cpu-parallel', ms: 437, plannedMiB: 108 }),
  sweepCell('ResNeXt', 4, 450, [446, 454]),
  sweepCell('ResNeXt', 8, 460, [455, 465]),
  groupsCell({ network: 'ResNeXt', schedule: 'sequential', backend: 'webgpu', ms: 300, plannedMiB: 11, part: 'webgpu' }),
  groupsCell({ network: 'ResNeXt', schedule: 'levels', backend: 'webgpu', ms: 310, plannedMiB: 12, part: 'webgpu' }),
  ...thesisLikeRows('GoogLeNet', 4, { '2-groups': { ms: 400, ci: [395, 405] } }),
];

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function report(quick: boolean): Promise<{ markdown: string; files: string[]; run: string }> {
  if (dir === '') dir = await mkdtemp(join(tmpdir(), 'memplan-groups-report-'));
  const store = await ResultStore.create(dir, 'parallel-groups', quick ? 'quick' : 'run');
  await store.writeRunInfo({ study: 'parallel-groups', config: CONFIG, quick, machine: { cpu: 'test cpu', cores: 4 } });
  for (const c of CELLS) await store.append(c);
  return { ...(await reportStudy(store.dir, 'parallel-groups', await store.readRunInfo())), run: store.dir };
}

describe('the parallel-groups report', () => {
  it("writes the thesis' table and ours, the findings decided on ours, each network beside the thesis, the sweep on every network, the WebGPU look and a CSV", async () => {
    const { markdown, files, run } = await report(false);
    const sections = markdown.split('\n').filter((l) => l.startsWith('## '));
    expect(sections).toEqual([
      "## The thesis' table, as published (ms: the mean of its runs ± two standard deviations · MB)",
      '## The table, ours (ms: the median and its 95% interval · planned MiB)',
      "## The thesis' findings on our numbers",
      '## ResNeXt (zoo:resnext)',
      '## GoogLeNet (zoo:googlenet)',
      '## Groups per layer (1, 2, 4, 8)',
      "## WebGPU: a step's dispatches in one compute pass (webgpu)",
    ]);
    // Statistics as each side gives them, in the layout of the thesis' table.
    expect(markdown).toMatch(/^\| method, 2 groups \| 219 ± 2 ms · 108\.8 MB \| 78 ± 1 ms · 42\.4 MB \|/m);
    expect(markdown).toMatch(/^\| method, 2 groups \| 438\.0 \[434\.0, 442\.0\] ms · 108\.80 MiB \| — \| 400\.0 \[395\.0, 405\.0\] ms · 42\.40 MiB \| — \| — \| — \|$/m);
    // The findings, in the claims' words: the headline holds on ResNeXt; GoogLeNet's 2 groups is slower than base here.
    expect(markdown).toMatch(/^\| ResNeXt \| ResNeXt: method, 2 groups is 6\.85% faster than base \(no reuse\) with 72\.4% less memory \(the thesis' conclusion\)\. \| \*holds in direction\* \|/m);
    expect(markdown).toMatch(/^\| GoogLeNet \| method, 2 groups is the fastest row of the table\. \| \*\*does not hold\*\* \| Ours: 400\.0 \[395\.0, 405\.0\] ms; not so: /m);
    expect(markdown).toMatch(
      /its memory-minimization figure exceeds our fp32 weights on every network \(ResNeXt 108\.8 MB against 95\.00 MiB of weights, GoogLeNet 42\.4 MB against 0\.00 MiB of weights\), so it appears to count the weights too/,
    );
    expect(markdown).toMatch(/Beside the thesis \(ResNeXt\), every ratio to its side's base \(no reuse\) row:/);
    expect(markdown).toMatch(/^\| method, 2 groups \| 219 ± 2 \| not recorded \| 438\.0 \[434\.0, 442\.0\] \| 0\.91–0\.97x \| 0\.91–0\.97x \| holds \| 108\.8 \| 203\.80 \|/m);
    // As it ran, the extra row included.
    expect(markdown).toMatch(/^\| \*method, 2 groups, best planner\* \| groups:2 \| offsets\/best-of \| cpu-parallel \| 85 \| 437\.0 \|/m);
    // The sweep: every swept network that ran, its finding beside.
    expect(markdown).toMatch(/^\| ResNeXt \| 4 \| 85 \| 33 \| 9\.00 \| 10\.00 \| 450\.0 \| \[446\.0, 454\.0\] \| 60% \| 110\.00 \|$/m);
    expect(markdown).toMatch(/^\| GoogLeNet \| 2 \| 85 \| 33 \|/m);
    expect(markdown).toMatch(/^\| ResNeXt \| 2 groups is the fastest of 1, 2, 4, 8 groups per layer\. \| holds \|/m);
    expect(markdown).toMatch(
      /^\| GoogLeNet \| 2 groups is the fastest of 1, 2 groups per layer\. \| \*\*does not hold\*\* \| Ours: 400\.0 \[395\.0, 405\.0\] ms; not so: 1 group ran faster \(intervals apart\)\. Not run: 4 groups, 8 groups\./m,
    );
    expect(markdown).toMatch(/- ResNeXt: device time against the sequential order: levels 1\.03x; no layered schedule ran faster here/);
    expect(markdown).toMatch(/parallel rows on 4 worker threads/);
    expect(markdown).not.toMatch(/Quick variant|ran TypeScript through tsx/);
    for (const suffix of ['parallel-groups.md', 'parallel-groups.csv', 'parallel-groups-sweep.svg', 'parallel-groups-sweep.png', 'parallel-groups-sweep.vl.json']) {
      expect(files).toContain(join(run, 'report', suffix));
    }
    const csv = (await readFile(join(run, 'report', 'parallel-groups.csv'), 'utf8')).trim().split('\n');
    expect(csv).toHaveLength(CELLS.length + 1);
  });

  it('says that a quick run is a look whose verdicts say nothing of the thesis', async () => {
    const { markdown } = await report(true);
    expect(markdown).toMatch(/\*\*Quick variant\*\* \(small inputs, few repetitions\): a look, not a measurement; its verdicts say nothing of the thesis\./);
  });

  it('draws the sweep a row per network: planned memory and bound, latency with its interval, the sequential plan as a rule; it compiles without warnings', () => {
    const series = ['ResNeXt', 'GoogLeNet'].map((network) => {
      const points = [1, 2, 4, 8].flatMap((groups) => {
        const cell = CELLS.find((c) => c.network === network && c.schedule === `groups:${groups}` && c.part !== 'webgpu' && c.row !== '2-groups-best');
        return cell ? [{ groups, cell }] : [];
      });
      return { network, points, reference: CELLS.find((c) => c.network === network && c.row === 'minimization') };
    });
    const spec = groupsSweepChartSpec(series, { title: 'sweep' });
    expectCompiles(spec);
    const rows = rowsOf(spec);
    expect(rows.filter((r) => r.groups !== undefined).map((r) => [r.network, r.groups, r.planned, r.median])).toEqual([
      ['ResNeXt', 1, 111.8, 454],
      ['ResNeXt', 2, 108.8, 438],
      ['ResNeXt', 4, 10, 450],
      ['ResNeXt', 8, 10, 460],
      ['GoogLeNet', 1, 42.4, 312],
      ['GoogLeNet', 2, 42.4, 400],
    ]);
    expect(rows.filter((r) => r.rule !== undefined)).toEqual([
      { network: 'ResNeXt', rule: 'sequential', plannedRule: 108.8, medianRule: 470 },
      { network: 'GoogLeNet', rule: 'sequential', plannedRule: 42.4, medianRule: 328 },
    ]);
    expect((spec as { vconcat: { title: string }[] }).vconcat.map((v) => v.title)).toEqual(['ResNeXt', 'GoogLeNet']);
    expect(() => groupsSweepChartSpec([{ network: 'N', points: [], reference: undefined }], { title: 'none' })).toThrow(/no point of the sweep has a measurement/);
  });
});
