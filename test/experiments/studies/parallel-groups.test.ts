import { findBackend } from '../../../src/backends/registry.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/experiment-error.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { parallelGroupsStudy, plannedCells, type GroupsCell } from '../../../src/experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../../src/experiments/studies/parallel-groups-config.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';

const FILE = 'experiments/parallel-groups.json';
const data = (): Record<string, unknown> => JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;

/** The thesis' table, "Результаты (1)" of its defence (../shared, never copied here): its row names to the file's row ids. */
const SEED = '../shared/paper/seeds/003_7bc65908919b4905.txt';
const SEED_ROWS: Record<string, string> = {
  'Базовая реализация': 'base',
  'Минимизация памяти': 'minimization',
  'Послойное вычисление': 'layer-wise',
  'Мой метод (1 группа)': '1-group',
  'Мой метод (2 группы)': '2-groups',
};

/** Every cell of the seed's table as the study file writes it: network -> row id -> { ms, twoSigmaMs, mb }. */
function seedTable(text: string): Record<string, Record<string, { ms: number; twoSigmaMs: number; mb: number }>> {
  const lines = text.slice(text.indexOf('Результаты (1)')).split('\n');
  const networks = lines
    .find((l) => l.startsWith('Метод\t'))!
    .split('\t')
    .filter((f) => f !== '' && f !== 'Метод');
  const table: Record<string, Record<string, { ms: number; twoSigmaMs: number; mb: number }>> = Object.fromEntries(networks.map((n) => [n, {}]));
  lines.forEach((line, k) => {
    const [label, what, ...values] = line.split('\t');
    if (what !== 'время, мс') return;
    const memory = lines[k + 1].split('\t').slice(2);
    values.forEach((value, n) => {
      const [ms, twoSigmaMs] = value.split('±').map((v) => Number(v.trim()));
      table[networks[n]][SEED_ROWS[label]] = { ms, twoSigmaMs, mb: Number(memory[n]) };
    });
  });
  return table;
}

const haveSeed = existsSync(SEED);
if (!haveSeed) console.warn(`test/experiments/studies/parallel-groups.test.ts: skipping the transcription check: ${SEED} is absent (the shared folder is not checked out).`);

describe('the parallel-groups study file', () => {
  it('reads the committed experiment: the thesis rows, its five networks and the grouped control, the sweep on every network, the published figures', () => {
    const config = parallelGroupsStudy.parse(data(), FILE);
    expect(config.rows.map((r) => [r.id, r.schedule, r.planner, r.backend])).toEqual([
      ['base', 'sequential', 'shared-objects/naive', 'cpu'],
      ['minimization', 'sequential', 'offsets/greedy-by-size', 'cpu'],
      ['layer-wise', 'levels', 'shared-objects/naive', 'cpu-parallel'],
      ['1-group', 'groups:1', 'offsets/greedy-by-size', 'cpu-parallel'],
      ['2-groups', 'groups:2', 'offsets/greedy-by-size', 'cpu-parallel'],
      ['2-groups-best', 'groups:2', 'offsets/best-of', 'cpu-parallel'],
    ]);
    expect(config.networks.filter((n) => n.thesis !== undefined).map((n) => n.thesis)).toEqual(['ResNeXt', 'GoogLeNet', 'MobileNetV2', 'Xception', 'InceptionV3']);
    expect(config.sweep).toEqual({ networks: config.networks.map((n) => n.label), groups: [1, 2, 4, 8], planner: 'offsets/greedy-by-size' });
    expect(config.quick.sweepNetworks).toEqual(['ResNeXt']);
    expect(config.thesis.values.ResNeXt['2-groups']).toEqual({ ms: 219, twoSigmaMs: 2, mb: 108.8 });
    expect(config.thesis.values.InceptionV3['1-group']).toEqual({ ms: 361, twoSigmaMs: 4, mb: 122.6 });
    // The table whole: every network of the thesis, every row of its, all three figures.
    for (const network of Object.values(config.thesis.values)) {
      expect(Object.keys(network)).toEqual(['base', 'minimization', 'layer-wise', '1-group', '2-groups']);
      for (const cell of Object.values(network)) expect(Object.keys(cell).sort()).toEqual(['mb', 'ms', 'twoSigmaMs']);
    }
    expect(config.thesis.headline).toEqual({ network: 'ResNeXt', row: '2-groups', against: 'base', fasterPercent: 6.85, lessMemoryPercent: 72.4 });
    for (const network of config.networks) expect(() => buildZooModel(network.quickSource)).not.toThrow();
  });

  it("holds the thesis' headline as its own table gives it: base over 2 groups less one, and one less their memory", () => {
    const { values, headline } = parallelGroupsStudy.parse(data(), FILE).thesis;
    const row = values[headline!.network][headline!.row];
    const against = values[headline!.network][headline!.against];
    // To the decimals the conclusion prints: 234 / 219 - 1 = 6.849%, 1 - 108.8 / 393.7 = 72.36%.
    expect(((against.ms! / row.ms! - 1) * 100).toFixed(2)).toBe(headline!.fasterPercent.toFixed(2));
    expect(((1 - row.mb! / against.mb!) * 100).toFixed(1)).toBe(headline!.lessMemoryPercent.toFixed(1));
    // Not 1 - 219 / 234 (6.41%): the thesis' "faster" is base's time over the method's.
    expect(((1 - row.ms! / against.ms!) * 100).toFixed(2)).not.toBe(headline!.fasterPercent.toFixed(2));
  });

  it.skipIf(!haveSeed)("transcribes the thesis' table cell for cell", () => {
    const config = parallelGroupsStudy.parse(data(), FILE);
    const seed = seedTable(readFileSync(SEED, 'utf8'));
    expect(Object.keys(seed)).toEqual(Object.keys(config.thesis.values));
    expect(Object.values(seed).flatMap((rows) => Object.keys(rows))).toHaveLength(25);
    expect(config.thesis.values).toEqual(seed);
  });

  it('names the field that is wrong, in one sentence', () => {
    const parse = (patch: Record<string, unknown>) => () => parallelGroupsStudy.parse({ ...data(), ...patch }, FILE);
    const rows = data().rows as Record<string, unknown>[];
    const thesis = data().thesis as Record<string, unknown>;
    const sweep = data().sweep as Record<string, unknown>;
    const withCell = (cell: Record<string, unknown>) => ({ thesis: { ...thesis, values: { ResNeXt: { base: cell } } } });
    expect(parse({ rows: [{ ...rows[0], schedule: 'groups:0' }] })).toThrow(ExperimentError);
    expect(parse({ rows: [{ ...rows[0], schedule: 'groups:0' }] })).toThrow(/\$\.rows\[0\]\.schedule: must be sequential, levels or groups:K/);
    expect(parse({ rows: [{ ...rows[0], backend: 'gpu' }] })).toThrow(/\$\.rows\[0\]\.backend: must be one of cpu, cpu-parallel/);
    expect(parse({ sweep: { ...sweep, networks: ['VGG'] } })).toThrow(/\$\.sweep\.networks\[0\]: "VGG" is not the label/);
    expect(parse({ sweep: { ...sweep, networks: ['ResNeXt', 'ResNeXt'] } })).toThrow(/\$\.sweep\.networks: names a network twice\./);
    expect(parse({ sweep: { ...sweep, groups: [1, 2, 2] } })).toThrow(/\$\.sweep\.groups: names a number of groups twice\./);
    // The form before the sweep covered every network: one clear sentence, not a silent default.
    expect(parse({ sweep: { network: 'ResNeXt', groups: [1], planner: 'offsets/greedy-by-size' } })).toThrow(`${FILE}: $.sweep.network: unknown field; expected one of networks, groups, planner.`);
    expect(parse({ sweep: { ...sweep, networks: ['GoogLeNet'] } })).toThrow(/\$\.quick\.sweepNetworks: "ResNeXt" is not one of \$\.sweep\.networks; the quick sweep is part of the full one\./);
    expect(parse({ thesis: { citation: 'x', device: 'y', values: { ResNeXt: { 'three-groups': { mb: 1 } } } } })).toThrow(/\$\.thesis\.values\.ResNeXt\.three-groups: "three-groups" is not the id/);
    expect(parse(withCell({ ms: 234, mb: 393.7 }))).toThrow(
      `${FILE}: $.thesis.values.ResNeXt.base: ms and twoSigmaMs come together: the thesis gives every time as the mean of its runs ± two standard deviations.`,
    );
    expect(parse(withCell({ twoSigmaMs: 5 }))).toThrow(/ms and twoSigmaMs come together/);
    expect(parse(withCell({ ms: 234, twoSigmaMs: -1 }))).toThrow(/\$\.thesis\.values\.ResNeXt\.base\.twoSigmaMs: must be a number >= 0\./);
    expect(parse(withCell({ ms: 0, twoSigmaMs: 1 }))).toThrow(/\$\.thesis\.values\.ResNeXt\.base\.ms: must be a number > 0\./);
    expect(parse(withCell({ mb: 'large' }))).toThrow(/\$\.thesis\.values\.ResNeXt\.base\.mb: must be a number > 0\./);
    expect(parse({ thesis: { ...thesis, headline: { ...(thesis.headline as object), row: 'base' } } })).toThrow(/\$\.thesis\.headline\.against: must be another row than \$\.thesis\.headline\.row\./);
    expect(parse({ thesis: { ...thesis, headline: { ...(thesis.headline as object), network: 'VGG' } } })).toThrow(/\$\.thesis\.headline\.network: must be one of ResNeXt, GoogLeNet/);
    expect(parse({ groups: 2 })).toThrow(/\$\.groups: unknown field/);
  });

  it('takes any spread >= 0 with its mean, and refuses a time given without its spread or a spread without its time', () => {
    const thesis = data().thesis as Record<string, unknown>;
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1e4, noNaN: true }), fc.double({ min: 0, max: 1e3, noNaN: true }), fc.boolean(), (ms, twoSigmaMs, whole) => {
        const cell = whole ? { ms, twoSigmaMs } : { ms };
        const parse = () => parallelGroupsStudy.parse({ ...data(), thesis: { ...thesis, values: { GoogLeNet: { '1-group': cell } } } }, FILE);
        if (whole) expect(parse().thesis.values.GoogLeNet['1-group']).toEqual({ ms, twoSigmaMs });
        else expect(parse).toThrow(/ms and twoSigmaMs come together/);
      }),
      { numRuns: 50 },
    );
  });

  it('plans the cells: every row on every network, the sweep on each swept network where the table has not run it, the WebGPU look only with an adapter', () => {
    const config = parallelGroupsStudy.parse(data(), FILE);
    const cells = plannedCells(config, true, false);
    const table = cells.filter((c) => c.part === 'table');
    expect(table).toHaveLength(config.networks.length * config.rows.length);
    expect(cells.filter((c) => c.part === 'sweep').map((c) => [c.network.label, c.schedule])).toEqual(
      config.networks.flatMap((n) => [
        [n.label, 'groups:4'],
        [n.label, 'groups:8'],
      ]),
    );
    // --quick sweeps its own networks only (the table's 1 and 2 groups are points of every network's sweep all the same).
    expect(
      plannedCells(config, true, true)
        .filter((c) => c.part === 'sweep')
        .map((c) => `${c.network.label} ${c.schedule}`),
    ).toEqual(['ResNeXt groups:4', 'ResNeXt groups:8']);
    expect(cells.filter((c) => c.part === 'webgpu').map((c) => `${c.network.label} ${c.schedule}`)).toEqual([
      'ResNeXt sequential',
      'ResNeXt levels',
      'ResNeXt groups:2',
      'GoogLeNet sequential',
      'GoogLeNet levels',
      'GoogLeNet groups:2',
    ]);
    expect(plannedCells(config, false, false).some((c) => c.part === 'webgpu')).toBe(false);
    expect(
      new Set(
        plannedCells(config, true, true)
          .filter((c) => c.part === 'webgpu')
          .map((c) => c.network.label),
      ),
    ).toEqual(new Set(['GoogLeNet']));
  });

  it('sweeps exactly the networks the file names, whichever they are', () => {
    const labels = parallelGroupsStudy.parse(data(), FILE).networks.map((n) => n.label);
    const sweep = data().sweep as Record<string, unknown>;
    fc.assert(
      fc.property(fc.subarray(labels, { minLength: 1 }), (networks) => {
        const config = parallelGroupsStudy.parse({ ...data(), sweep: { ...sweep, networks }, quick: { repetitions: 1, warmup: 0 } }, FILE);
        const swept = plannedCells(config, false, false).filter((c) => c.part === 'sweep');
        expect([...new Set(swept.map((c) => c.network.label))]).toEqual(networks);
        expect(plannedCells(config, false, true).filter((c) => c.part === 'sweep')).toHaveLength(swept.length);
      }),
      { numRuns: 20 },
    );
  });
});

describe('a small run of the study', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-groups-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('measures every cell in a process of its own, checks it bit for bit against the naive run, and stores it as it finishes', async () => {
    const config: ParallelGroupsConfig = {
      ...parallelGroupsStudy.parse(data(), FILE),
      networks: [{ source: 'zoo:blazeface', label: 'BlazeFace', quickSource: 'zoo:blazeface?input=64' }],
      rows: [
        { id: 'minimization', label: 'memory minimization', schedule: 'sequential', planner: 'offsets/greedy-by-size', backend: 'cpu', extra: false },
        { id: '2-groups', label: 'method, 2 groups', schedule: 'groups:2', planner: 'offsets/greedy-by-size', backend: 'cpu-parallel', extra: false },
      ],
      sweep: { networks: ['BlazeFace'], groups: [2, 3], planner: 'offsets/greedy-by-size' },
      quick: { repetitions: 3, warmup: 1 },
      workers: 2,
      thesis: { citation: 'none', device: 'none', values: {} },
    };
    const { webgpu: _webgpu, ...cpuOnly } = config;
    const store = await ResultStore.create(dir, config.name, 'run');
    const cells = await parallelGroupsStudy.run(cpuOnly, store, { quick: true, quiet: true });
    expect(cells.map((c) => [c.part, c.row ?? c.schedule, c.backend])).toEqual([
      ['table', 'minimization', 'cpu'],
      ['table', '2-groups', 'cpu-parallel'],
      ['sweep', 'groups:3', 'cpu-parallel'],
    ]);
    expect(await store.readCells<GroupsCell>()).toEqual(cells);
    for (const cell of cells) {
      expect(cell.error).toBeUndefined();
      expect(cell.source).toBe('zoo:blazeface?input=64');
      expect(cell.report?.matchesNaive).toBe(true);
      expect(cell.report?.latencyMs.runs).toBe(config.quick.repetitions);
      const { problem, steps } = plannedProblem(buildZooModel(cell.source), executionRecords(findBackend(cell.backend), { schedule: cell.schedule }));
      expect(cell.steps).toBe(steps.length);
      expect(cell.report!.footprint).toBeGreaterThanOrEqual(cell.bound);
      expect(cell.naive).toBe(problem.records.reduce((sum, r) => sum + r.size, 0));
    }
    expect(cells[1].report?.parallel).toMatchObject({ workers: 2, steps: cells[1].steps });
  });
});
