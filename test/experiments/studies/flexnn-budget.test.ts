import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/experiment-error.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { flexnnBudgetStudy, plannedJobs, type BudgetCell } from '../../../src/experiments/studies/flexnn-budget.ts';
import { runStudy } from '../../../src/experiments/study.ts';
import { smallestRunBudget } from '../../../src/backends/budgeted/budget-share.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { findPlanner } from '../../../src/planners/registry.ts';

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
      ['zoo:vit-b-16', [200, 300, 500]],
      ['zoo:gpt-2', [370, 400, 500]],
    ]);
    // Seconds an inference here: fewer runs, stated.
    expect(config.networks.slice(4).map((n) => [n.repetitions, n.warmup])).toEqual([
      [3, 1],
      [3, 1],
    ]);
    expect(config.ablation).toEqual({ networks: ['VGG-19', 'ResNet-152'], budgetsMiB: [100, 500] });
    expect(config).toMatchObject({ repetitions: 8, warmup: 4, alignment: 64, fromMinimum: true });
    expect(config.storage.map((s) => s.bandwidth)).toEqual([undefined, '400MB']);
    expect(config.storage[1].source).toMatch(/JESD84-B51/);
    // The source names the phone class, not the network: the headline is compared on every network.
    expect(config.paper).toMatchObject({ memorySaved: 0.9381, latencyAdded: 0.0364 });
    expect(config.paper.network).toBeUndefined();
    expect(config.adaptive).toMatchObject({ networks: ['VGG-19', 'ResNet-152'], budgetsMiB: [100, 300, 200, 500], paper: { adaptSeconds: 1 } });
    expect(config.quick.adaptive?.budgetsMiB).toEqual([8, 12, 6, 10]);
  });

  it('runs the adaptive sequence once per storage on the networks it names, after their sweep and ablation', () => {
    const config = flexnnBudgetStudy.parse(data(), FILE);
    const jobs = plannedJobs(config.networks, config.ablation, config, config.adaptive).filter((j) => j.method === 'flexnn-adaptive');
    // The stated eMMC runs only the networks it names: VGG-19 is read from this machine's disk alone.
    expect(jobs.map((j) => `${j.network.label}@${j.budgetMiB}->${j.adapt?.join(',')} [${j.storage?.label}]`)).toEqual([
      "VGG-19@100->300,200,500 [this machine's disk]",
      "ResNet-152@100->300,200,500 [this machine's disk]",
      'ResNet-152@100->300,200,500 [eMMC 5.1 flash (400 MB/s)]',
    ]);
    expect(() => flexnnBudgetStudy.parse({ ...data(), storage: [{ label: 'x', networks: ['GPT-3'] }] }, FILE)).toThrow(/\$\.storage\[0\]\.networks\[0\]: "GPT-3" is not the label/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), adaptive: { networks: ['VGG-19'], budgetsMiB: [100] } }, FILE)).toThrow(
      /\$\.adaptive\.budgetsMiB: needs a first budget and at least one to change to/,
    );
    expect(() => flexnnBudgetStudy.parse({ ...data(), adaptive: { networks: ['GPT-3'], budgetsMiB: [100, 200] } }, FILE)).toThrow(/\$\.adaptive\.networks\[0\]: "GPT-3" is not the label/);
  });

  it('reads a file without storage or fromMinimum as one storage (this disk), swept from the minimum', () => {
    const { storage: _storage, fromMinimum: _from, ...rest } = data();
    const config = flexnnBudgetStudy.parse(rest, FILE);
    expect(config.storage).toEqual([{ label: "this machine's disk" }]);
    expect(config.fromMinimum).toBe(true);
  });

  it('names the field that is wrong', () => {
    const bad = data();
    (bad.networks as { budgetsMiB: unknown[] }[])[1].budgetsMiB[0] = -35;
    expect(() => flexnnBudgetStudy.parse(bad, FILE)).toThrow(ExperimentError);
    expect(() => flexnnBudgetStudy.parse(bad, FILE)).toThrow(/\$\.networks\[1\]\.budgetsMiB\[0\]: must be a number of MiB > 0/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), ablation: { networks: ['GPT-2'], budgetsMiB: [100] } }, FILE)).toThrow(/\$\.ablation\.networks\[0\]: "GPT-2" is not the label/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), alignment: 4 }, FILE)).toThrow(/\$\.alignment: must be a whole number >= 16/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), budgets: [] }, FILE)).toThrow(/\$\.budgets: unknown field/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), storage: [{ label: 'slow', bandwidth: 'slow' }] }, FILE)).toThrow(/\$\.storage\[0\]\.bandwidth: "slow" is not a read speed/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), storage: [{ label: 'slow', bandwidth: '100MB' }] }, FILE)).toThrow(/\$\.storage\[0\]: a stated speed needs its source/);
    expect(() => flexnnBudgetStudy.parse({ ...data(), storage: [] }, FILE)).toThrow(/\$\.storage: must be a non-empty array/);
  });

  it('runs the default once per network; per storage on-demand, FlexNN from its smallest budget through every listed one, the ablation where asked (with FlexNN at ablation budgets the sweep lacks)', () => {
    const config = flexnnBudgetStudy.parse(data(), FILE);
    const jobs = plannedJobs(config.networks, config.ablation, { ...config, storage: [config.storage[0]] });
    const of = (label: string) => jobs.filter((j) => j.network.label === label).map((j) => `${j.part}:${j.method}${j.budgetMiB === null ? '' : `@${j.budgetMiB}`}`);
    expect(of('MobileNet v2')).toEqual(['baseline:default', 'baseline:on-demand', 'budgets:flexnn@minimum', 'budgets:flexnn@12', 'budgets:flexnn@15', 'budgets:flexnn@20']);
    const both = plannedJobs(config.networks, config.ablation, config).filter((j) => j.network.label === 'MobileNet v2');
    expect(both.map((j) => j.storage?.label ?? '-')).toEqual(['-', ...Array(5).fill("this machine's disk"), ...Array(5).fill('eMMC 5.1 flash (400 MB/s)')]);
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
        fromMinimum: true,
        storage: [{ label: 'slow flash', bandwidth: '200MB', source: 'a test' }],
        paper: { citation: 'c', device: 'd', memorySaved: 0.9, latencyAdded: 0.1 },
      };
      const { dir } = await runStudy(flexnnBudgetStudy, study, 'tiny.json', root, { quiet: true });
      const cells = await new ResultStore(dir).readCells<BudgetCell>();
      const graph = buildZooModel('zoo:mobilenet-v2?input=48');
      const minimum = smallestRunBudget(findPlanner('budgeted/flexnn'), graph, {}, 64) as number;
      expect(cells.map((c) => `${c.method}${c.budget === null ? '' : `@${c.budget}`}:${c.feasible}`)).toEqual([
        'default:true',
        'on-demand:true',
        `flexnn@${minimum}:true`,
        `flexnn@${Math.round(0.05 * 2 ** 20)}:false`,
        `flexnn@${6 * 2 ** 20}:true`,
        `flexnn-no-preload@${6 * 2 ** 20}:true`,
        `flexnn-no-planning@${6 * 2 ** 20}:true`,
      ]);
      expect(cells[2].minimum).toBe(true);
      // Every streamed cell read at the stated speed, and says so; the default read nothing.
      expect(cells[0].storage).toBeUndefined();
      for (const c of cells.slice(1).filter((x) => x.feasible)) {
        expect(c.storage).toBe('slow flash');
        expect(c.reads?.bytesPerSecond).toBe(200e6);
        expect(c.readBytesPerSecond as number).toBeLessThanOrEqual(200e6 * 1.001);
        expect(c.planningMs as number).toBeGreaterThan(0);
      }
      for (const c of cells.filter((x) => x.feasible)) expect(c.samplesMs).toHaveLength(1);
      const infeasible = cells[3];
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
