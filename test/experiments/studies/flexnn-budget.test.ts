import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/config.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { flexnnBudgetStudy, plannedJobs, type BudgetCell } from '../../../src/experiments/studies/flexnn-budget.ts';
import { runStudy } from '../../../src/experiments/study.ts';

const FILE = 'experiments/flexnn-budget.json';
const data = (): Record<string, unknown> => JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;

describe('the flexnn-budget study file', () => {
  it("reads the committed experiment: FlexNN's networks and budgets, the ablation, 8 runs after 4 warm-ups, the quick variant", () => {
    const config = flexnnBudgetStudy.parse(data(), FILE);
    expect(config.networks.map((n) => [n.source, n.budgetsMiB])).toEqual([
      ['zoo:vgg-19', [60, 70, 80, 90, 100, 200, 300, 400, 600, 850, 1000]],
      ['zoo:resnet-152', [35, 50, 100, 200, 300, 400, 500, 600]],
      ['zoo:squeezenet-1.1', [10, 15, 20]],
      ['zoo:mobilenet-v2', [12, 15, 20]],
    ]);
    expect(config.ablation).toEqual({ networks: ['VGG-19', 'ResNet-152'], budgetsMiB: [100, 500] });
    expect(config).toMatchObject({ repetitions: 8, warmup: 4, alignment: 64 });
    expect(config.paper).toMatchObject({ network: 'ResNet-152', memorySaved: 0.9381, latencyAdded: 0.0364 });
  });

  it('names the field that is wrong', () => {
    const bad = data();
    (bad.networks as { budgetsMiB: unknown[] }[])[1].budgetsMiB[0] = -35;
    expect(() => flexnnBudgetStudy.parse(bad, FILE)).toThrow(ExperimentError);
    expect(() => flexnnBudgetStudy.parse(bad, FILE)).toThrow(/\$\.networks\[1\]\.budgetsMiB\[0\]: must be a number of MiB > 0/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), ablation: { networks: ['GPT-2'], budgetsMiB: [100] } }, FILE)).toThrow(/\$\.ablation\.networks\[0\]: "GPT-2" is not the label/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), alignment: 4 }, FILE)).toThrow(/\$\.alignment: must be a whole number >= 16/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), budgets: [] }, FILE)).toThrow(/\$\.budgets: unknown field/);
  });

  it('runs the baselines once per network, FlexNN at every budget, the ablation where asked (with FlexNN at ablation budgets the sweep lacks)', () => {
    const config = flexnnBudgetStudy.parse(data(), FILE);
    const jobs = plannedJobs(config.networks, config.ablation);
    const of = (label: string) => jobs.filter((j) => j.network.label === label).map((j) => `${j.part}:${j.method}${j.budgetMiB === null ? '' : `@${j.budgetMiB}`}`);
    expect(of('MobileNet v2')).toEqual(['baseline:default', 'baseline:on-demand', 'budgets:flexnn@12', 'budgets:flexnn@15', 'budgets:flexnn@20']);
    // VGG-19's sweep has no 500 MiB: the ablation runs FlexNN there itself; ResNet-152's has.
    expect(of('VGG-19').filter((j) => j.endsWith('@500'))).toEqual(['ablation:flexnn@500', 'ablation:flexnn-no-preload@500', 'ablation:flexnn-no-planning@500']);
    expect(of('ResNet-152').filter((j) => j.endsWith('@500'))).toEqual(['budgets:flexnn@500', 'ablation:flexnn-no-preload@500', 'ablation:flexnn-no-planning@500']);
  });
});

describe('a flexnn-budget run', () => {
  it('records every cell, infeasible budgets as infeasible with the smallest budget that works, outputs checked', async () => {
    const root = await mkdtemp(join(tmpdir(), 'memplan-flexnn-study-'));
    try {
      const study = {
        study: 'flexnn-budget',
        name: 'tiny',
        title: 'tiny',
        networks: [{ label: 'MobileNet v2 (48)', source: 'zoo:mobilenet-v2?input=48', budgetsMiB: [0.05, 6] }],
        ablation: { networks: ['MobileNet v2 (48)'], budgetsMiB: [6] },
        repetitions: 1,
        warmup: 0,
        quick: { networks: [{ label: 'x', source: 'zoo:mobilenet-v2?input=32', budgetsMiB: [1] }], ablation: { networks: ['x'], budgetsMiB: [1] } },
        paper: { citation: 'c', device: 'd', network: 'MobileNet v2 (48)', memorySaved: 0.9, latencyAdded: 0.1 },
      };
      const { dir } = await runStudy(flexnnBudgetStudy, study, 'tiny.json', root, { quiet: true });
      const cells = await new ResultStore(dir).readCells<BudgetCell>();
      expect(cells.map((c) => `${c.method}${c.budget === null ? '' : `@${c.budget}`}:${c.feasible}`)).toEqual([
        'default:true',
        'on-demand:true',
        `flexnn@${Math.round(0.05 * 2 ** 20)}:false`,
        `flexnn@${6 * 2 ** 20}:true`,
        `flexnn-no-preload@${6 * 2 ** 20}:true`,
        `flexnn-no-planning@${6 * 2 ** 20}:true`,
      ]);
      const infeasible = cells[2];
      expect(infeasible.reason).toMatch(/cannot fit/);
      expect(infeasible.smallestBudget).toBeGreaterThan(infeasible.budget as number);
      for (const c of cells.filter((x) => x.feasible)) {
        expect(c.matchesUnbudgeted, c.method).toBe(true);
        expect(c.meanLatencyMs, c.method).toBeGreaterThan(0);
        expect(c.memory?.peakRss, c.method).toBeGreaterThan(0);
        // A budgeted cell says whether it kept its budget, from its measurement; the baselines have none to keep.
        if (c.budget === null) expect(c.withinBudget, c.method).toBeUndefined();
        else {
          expect(c.withinBudget, c.method).toBe((c.memory?.peakRssDelta as number) <= c.budget);
          expect(c.withinBudget, c.method).toBe(true);
          expect(c.buffer, c.method).toBeLessThan(c.budget);
          expect(c.footprint, c.method).toBeLessThanOrEqual(c.buffer as number);
        }
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
