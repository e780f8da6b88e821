import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MemoryReport } from '../../../src/backends/execution-report.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import type { FlexnnBudgetConfig } from '../../../src/experiments/studies/flexnn-budget-config.ts';
import type { BudgetCell, Method } from '../../../src/experiments/studies/flexnn-budget.ts';
import { reportStudy } from '../../../src/report/study-reports.ts';
import '../../../src/report/studies/index.ts';

const MiB = 2 ** 20;
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function memory(peakMiB: number): MemoryReport {
  return { planned: 0, intermediates: 0, io: 0, weights: 0, scratch: 0, baselineRss: 90 * MiB, peakRss: (90 + peakMiB) * MiB, peakRssDelta: peakMiB * MiB, rest: 0, method: 'test' };
}

function cell(network: string, method: Method, budgetMiB: number | null, meanMs: number, peakMiB: number, part: BudgetCell['part'] = budgetMiB === null ? 'baseline' : 'budgets'): BudgetCell {
  return {
    network,
    source: 'zoo:x',
    method,
    part,
    budget: budgetMiB === null ? null : budgetMiB * MiB,
    planner: 'p',
    feasible: true,
    footprint: (budgetMiB ?? peakMiB) * MiB,
    meanLatencyMs: meanMs,
    medianLatencyMs: meanMs,
    samplesMs: [meanMs * 0.99, meanMs, meanMs * 1.01],
    ...(method === 'default' ? {} : { storage: "this machine's disk", reads: { direct: true, bytesPerSecond: null }, readBytesPerSecond: 500e6, planningMs: 12 }),
    ioStallMs: 1,
    bytesLoaded: 200 * MiB,
    preloaded: 3,
    memory: memory(peakMiB),
    matchesUnbudgeted: true,
  };
}

const config = {
  name: 'flexnn-budget',
  title: 'FlexNN here',
  repetitions: 8,
  warmup: 4,
  seed: 1,
  ablation: { networks: ['ResNet-152'], budgetsMiB: [100] },
  quick: { networks: [], ablation: { networks: [], budgetsMiB: [] }, repetitions: 1, warmup: 0 },
  fromMinimum: true,
  storage: [{ label: "this machine's disk" }],
  paper: { citation: 'FlexNN', device: 'a smartphone', memorySaved: 0.9381, latencyAdded: 0.0364 },
} as unknown as FlexnnBudgetConfig;

const CELLS: BudgetCell[] = [
  cell('ResNet-152', 'default', null, 1000, 400),
  cell('ResNet-152', 'on-demand', null, 1300, 60),
  { network: 'ResNet-152', source: 'zoo:x', method: 'flexnn', part: 'budgets', budget: 20 * MiB, planner: 'budgeted/flexnn', feasible: false, reason: 'cannot fit', smallestBudget: 30 * MiB },
  { ...cell('ResNet-152', 'flexnn', 40, 1050, 40), buffer: 35 * MiB, withinBudget: true },
  { ...cell('ResNet-152', 'flexnn', 100, 1010, 102), buffer: 95 * MiB, withinBudget: false },
  cell('ResNet-152', 'flexnn-no-preload', 100, 1200, 100, 'ablation'),
  {
    network: 'ResNet-152',
    source: 'zoo:x',
    method: 'flexnn-no-planning',
    part: 'ablation',
    budget: 100 * MiB,
    planner: 'offsets/greedy-by-size',
    feasible: false,
    reason: 'over the budget',
    smallestBudget: null,
  },
];

describe('the flexnn-budget report', () => {
  it("tabulates every method and budget, infeasible ones included, decides FlexNN's claims and sets its headline beside ours, computed the same way", async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-flexnn-report-'));
    const store = await ResultStore.create(dir, 'flexnn-budget', 'run');
    const info = { study: 'flexnn-budget', config, quick: false, machine: { cpu: 'test cpu', cores: 2 } };
    await store.writeRunInfo(info);
    for (const c of CELLS) await store.append(c);
    const { markdown, files } = await reportStudy(store.dir, 'flexnn-budget', info);
    expect(markdown).toContain('| FlexNN | 20.0 | infeasible (smallest budget that works: 30.0 MiB) |');
    expect(markdown).toContain('| FlexNN | 40.0 | 1050.0 | 1039.5–1060.5 | 40.0 | yes | 35.0 | 40.0 | 1.0 | 200.0 | 500 | 3 | 12.0 | identical |');
    expect(markdown).toContain('| FlexNN | 100.0 | 1010.0 | 999.9–1020.1 | 102.0 | **no** (+2.0 MiB) | 95.0 | 100.0 |');
    expect(markdown).toContain('| ResNet-152 | 100 | 1010.0 ms, 102.0 MiB (**over budget**) | 1200.0 ms, 100.0 MiB | infeasible |');
    // The smallest feasible budget (40 MiB) against default: 1 - 40/400 saved, 1050/1000 - 1 added.
    expect(markdown).toContain('| ResNet-152 | 400.0 | 1000.0 | 40.0 | 40.0 | 1050.0 | 90.00% | +5.00% |');
    expect(markdown).toContain("| FlexNN's paper (a smartphone; no network named) | | | | | | 93.81% | +3.64% |");
    // The claims, each decided: on-demand (60 MiB) peaks above FlexNN's 40, preloading helps (1010 against 1200 ms), a bigger budget is faster.
    expect(markdown).toMatch(/\| runs in less memory than on-demand loading \| ResNet-152 \| .+ \| FlexNN 40\.0 MiB at its smallest budget \(40\.0 MiB\), on-demand 60\.0 MiB \| holds \|/);
    expect(markdown).toMatch(/\| preloading helps \(FlexNN against FlexNN without it, 100\.0 MiB\) \| ResNet-152 \| .+ \| holds \|/);
    expect(markdown).toMatch(/\| memory saved against the default .+ \| 90\.0%: 40\.0 MiB at the smallest budget against 400\.0 MiB \| \*holds in direction\* \|/);
    expect(markdown).toMatch(/\| latency added against the default, at the smallest budget \| ResNet-152 \| \+3\.6% .+ \| \+5\.0% \(95% interval .+\) \| \*holds in direction\* \|/);
    expect(markdown).toContain('No claim comes out the other way round here.');
    expect(markdown).toContain('| ResNet-152 | 12.0 at 40.0 MiB | 12.0 at 100.0 MiB | 12.0 |');
    expect(markdown).toMatch(/Weights are read with O_DIRECT.+this machine's disk, at its own speed \(500 MB\/s as the on-demand loads measured it\)/);
    expect(markdown).toContain('Every measured output is bit-identical');
    expect(files.some((f) => f.endsWith('flexnn-budget-latency.png'))).toBe(true);
  });
});
