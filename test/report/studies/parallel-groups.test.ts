import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecuteReport } from '../../../src/backends/execution-report.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { parallelGroupsStudy, type GroupsCell } from '../../../src/experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../../src/experiments/studies/parallel-groups-config.ts';
import { groupsSweepChartSpec } from '../../../src/report/charts/groups-sweep-chart.ts';
import { compareLatency, measuredFinding, networkFindings } from '../../../src/report/groups-findings.ts';
import { reportStudy } from '../../../src/report/study-reports.ts';
import '../../../src/report/studies/index.ts';
import { expectCompiles, rowsOf } from '../charts/spec-data.ts';

const MiB = 2 ** 20;
const FILE = 'experiments/parallel-groups.json';
const CONFIG: ParallelGroupsConfig = parallelGroupsStudy.parse(JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>, FILE);

/** A measured cell: median ms with a +-1 ms interval, planned MiB. */
function cell(network: string, row: string | undefined, schedule: string, backend: string, ms: number, plannedMiB: number, part: GroupsCell['part'] = 'table'): GroupsCell {
  const report = {
    backend,
    planner: 'offsets/greedy-by-size',
    footprint: plannedMiB * MiB,
    latencyMs: { runs: 15, median: ms, min: ms - 2, max: ms + 2, p90: ms + 1, ci95: [ms - 1, ms + 1] },
    matchesNaive: true,
    memory: {
      planned: plannedMiB * MiB,
      intermediates: plannedMiB * MiB,
      io: 0,
      weights: 95 * MiB,
      scratch: 8 * MiB,
      baselineRss: 50 * MiB,
      peakRss: 160 * MiB,
      peakRssDelta: 110 * MiB,
      rest: 0,
      method: 'test',
    },
    peakRssBytes: 160 * MiB,
    device: { backend },
    ...(backend === 'cpu-parallel' ? { parallel: { workers: 4, steps: 85, stepSizes: [], stepMs: [], stepsMs: ms, busyFraction: 0.6, poolRss: 0 } } : {}),
    ...(backend === 'webgpu' ? { deviceMs: { runs: 15, median: ms - 5, min: ms - 6, max: ms - 4, p90: ms - 4, ci95: [ms - 6, ms - 4] } } : {}),
  } as unknown as ExecuteReport;
  return {
    part,
    network,
    source: `zoo:${network}`,
    ...(row ? { row } : {}),
    schedule: schedule as GroupsCell['schedule'],
    planner: 'offsets/greedy-by-size',
    backend,
    steps: 85,
    largestStep: 33,
    naive: 90 * MiB,
    bound: 9 * MiB,
    report,
    compiled: true,
  };
}

/** ResNeXt: 2 groups keep minimization's memory and run faster than base; 1 group 7% over minimization. */
const CELLS: GroupsCell[] = [
  cell('ResNeXt', 'base', 'sequential', 'cpu', 100, 90),
  cell('ResNeXt', 'minimization', 'sequential', 'cpu', 101, 10),
  cell('ResNeXt', 'layer-wise', 'levels', 'cpu-parallel', 99.5, 90),
  cell('ResNeXt', '1-group', 'groups:1', 'cpu-parallel', 70, 10.7),
  cell('ResNeXt', '2-groups', 'groups:2', 'cpu-parallel', 80, 10.05),
  cell('ResNeXt', '2-groups-best', 'groups:2', 'cpu-parallel', 81, 10),
  cell('ResNeXt', undefined, 'groups:4', 'cpu-parallel', 90, 10, 'sweep'),
  cell('ResNeXt', undefined, 'groups:8', 'cpu-parallel', 95, 10, 'sweep'),
  cell('ResNeXt', undefined, 'sequential', 'webgpu', 300, 11, 'webgpu'),
  cell('ResNeXt', undefined, 'levels', 'webgpu', 310, 12, 'webgpu'),
];

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the parallel-groups findings', () => {
  it('tells faster, slower and not distinguishable apart by the 95% intervals of the medians', () => {
    const at = (median: number, low: number, high: number) => ({ runs: 5, median, min: low, max: high, p90: high, ci95: [low, high] as const });
    expect(compareLatency(at(10, 9, 11), at(20, 19, 21))).toBe('faster');
    expect(compareLatency(at(20, 19, 21), at(10, 9, 11))).toBe('slower');
    expect(compareLatency(at(10, 9, 15), at(14, 12, 16))).toBe('not distinguishable');
  });

  it('says for a network whether 2 groups keep the memory, whether 1 group is within 5%, and which parallel rows beat base, beside the thesis', () => {
    const [two, one, time, measured] = networkFindings(CONFIG, CELLS, 'ResNeXt');
    expect(two).toMatch(/^ResNeXt: 2 groups plans 10\.05 MiB against minimization's 10\.00 MiB \(\+0\.5%\): it keeps minimization's memory \(thesis: 108\.8 MB against 108\.8 MB, \+0\.0%\)\.$/);
    expect(one).toMatch(/1 group plans 10\.70 MiB, \+7\.0% against minimization: more than 5% over \(thesis: 111\.8 MB, \+2\.8%\)\.$/);
    expect(time).toMatch(
      /the fastest parallel row, method, 1 group, takes 70\.0 ms against base's 100\.0 ms \(−30\.0%; faster, .*\); faster than base: method, 1 group, method, 2 groups \(thesis: method, 2 groups 219 ms against 234 ms, −6\.4%\)\.$/,
    );
    expect(measured).toMatch(
      /^ResNeXt: measured peak − baseline, against minimization's 110\.00 MiB: 2 groups 110\.00 MiB \(a plan 0\.05 MiB larger; as planned\), 1 group 110\.00 MiB \(a plan 0\.70 MiB larger; as planned\);/,
    );
    expect(networkFindings(CONFIG, CELLS, 'GoogLeNet')).toEqual([]);
  });

  it("calls a parallel row measured as planned when its peak, less its plan's excess, is within 5% + 1 MiB of minimization's", () => {
    const row = (plannedMiB: number, peakMiB: number) => ({ footprint: plannedMiB * MiB, memory: { peakRssDelta: peakMiB * MiB } });
    const minimization = row(10, 100);
    // 100 * 1.05 + 1 = 106 MiB allowed once the plan's 4 extra MiB are taken off.
    expect(measuredFinding('N', minimization, [{ name: '2 groups', r: row(14, 110) }])).toMatch(/2 groups 110\.00 MiB \(a plan 4\.00 MiB larger; as planned\)/);
    expect(measuredFinding('N', minimization, [{ name: '2 groups', r: row(14, 110.1) }])).toMatch(/\*\*more than planned\*\*/);
    expect(measuredFinding('N', minimization, [{ name: '1 group', r: row(10, 95) }])).toMatch(/1 group 95\.00 MiB \(the same plan size; as planned\)/);
    expect(measuredFinding('N', undefined, [{ name: '1 group', r: row(10, 95) }])).toBeUndefined();
    expect(measuredFinding('N', minimization, [{ name: '1 group', r: undefined }])).toBeUndefined();
  });
});

describe('the parallel-groups report', () => {
  it('writes the table beside the thesis as ratios, the findings, the sweep chart, the WebGPU look and a CSV', async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-groups-report-'));
    const store = await ResultStore.create(dir, 'parallel-groups', 'run');
    await store.writeRunInfo({ study: 'parallel-groups', config: CONFIG, quick: false, machine: { cpu: 'test cpu', cores: 4 } });
    for (const c of CELLS) await store.append(c);
    const { markdown, files } = await reportStudy(store.dir, 'parallel-groups', await store.readRunInfo());
    // The ResNeXt rows: ours as ratios to our base (70 / 100 ms, 10 / 90 MiB), the thesis' to its base (219 / 234 ms, 108.8 / 393.7 MB).
    expect(markdown).toMatch(
      /\| method, 2 groups \| groups:2 \| offsets\/greedy-by-size \| cpu-parallel \| 85 \| 80\.0 \| \[79\.0, 81\.0\] \| 78\.0–82\.0 \| 10\.05 \| 95\.00 \| 110\.00 \| 60% \| 0\.80x \| 0\.11x \| 219 \| 108\.8 \| 0\.94x \| 0\.28x \|/,
    );
    expect(markdown).toMatch(/^- ResNeXt: 2 groups plans/m);
    expect(markdown).toMatch(/\| 4 \| 85 \| 33 \| 9\.00 \| 10\.00 \| 90\.0 \|/);
    expect(markdown).toMatch(/- ResNeXt: device time against the sequential order: levels 1\.03x; no layered schedule ran faster here/);
    expect(markdown).toMatch(/parallel rows on 4 worker threads/);
    expect(markdown).not.toMatch(/ran TypeScript through tsx/);
    for (const suffix of ['parallel-groups.md', 'parallel-groups.csv', 'parallel-groups-sweep.svg', 'parallel-groups-sweep.png', 'parallel-groups-sweep.vl.json']) {
      expect(files).toContain(join(store.dir, 'report', suffix));
    }
    const csv = (await readFile(join(store.dir, 'report', 'parallel-groups.csv'), 'utf8')).trim().split('\n');
    expect(csv).toHaveLength(CELLS.length + 1);
  });

  it('draws the sweep: planned memory and bound, latency with its interval, the sequential plan as a rule; it compiles without warnings', () => {
    const points = [1, 2, 4, 8].map((groups, k) => ({ groups, cell: CELLS[[3, 4, 6, 7][k]] }));
    const spec = groupsSweepChartSpec(points, CELLS[1], { title: 'sweep' });
    expectCompiles(spec);
    const rows = rowsOf(spec);
    expect(rows.filter((r) => r.groups !== undefined).map((r) => [r.groups, r.planned, r.median])).toEqual([
      [1, 10.7, 70],
      [2, 10.05, 80],
      [4, 10, 90],
      [8, 10, 95],
    ]);
    expect(rows.find((r) => r.rule !== undefined)).toEqual({ rule: 'sequential', plannedRule: 10, medianRule: 101 });
  });
});
