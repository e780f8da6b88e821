import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/config.ts';
import { ResultStore } from '../../../src/experiments/result-store.ts';
import { parallelGroupsStudy, plannedCells, type GroupsCell } from '../../../src/experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../../src/experiments/studies/parallel-groups-config.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';

const FILE = 'experiments/parallel-groups.json';
const data = (): Record<string, unknown> => JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;

describe('the parallel-groups study file', () => {
  it('reads the committed experiment: the thesis rows, its five networks and the grouped control, the sweep, the published figures', () => {
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
    expect(config.sweep).toEqual({ network: 'ResNeXt', groups: [1, 2, 4, 8], planner: 'offsets/greedy-by-size' });
    expect(config.thesis.values.ResNeXt['2-groups']).toEqual({ ms: 219, mb: 108.8 });
    expect(config.thesis.values.InceptionV3['1-group']).toEqual({ mb: 122.6 });
    for (const network of config.networks) expect(() => buildZooModel(network.quickSource)).not.toThrow();
  });

  it('names the field that is wrong', () => {
    const parse = (patch: Record<string, unknown>) => () => parallelGroupsStudy.parse({ ...data(), ...patch }, FILE);
    const rows = data().rows as Record<string, unknown>[];
    expect(parse({ rows: [{ ...rows[0], schedule: 'groups:0' }] })).toThrow(ExperimentError);
    expect(parse({ rows: [{ ...rows[0], schedule: 'groups:0' }] })).toThrow(/\$\.rows\[0\]\.schedule: must be sequential, levels or groups:K/);
    expect(parse({ rows: [{ ...rows[0], backend: 'gpu' }] })).toThrow(/\$\.rows\[0\]\.backend: must be one of cpu, cpu-parallel/);
    expect(parse({ sweep: { network: 'VGG', groups: [1], planner: 'offsets/greedy-by-size' } })).toThrow(/\$\.sweep\.network: "VGG" is not the label/);
    expect(parse({ thesis: { citation: 'x', device: 'y', values: { ResNeXt: { 'three-groups': { mb: 1 } } } } })).toThrow(/\$\.thesis\.values\.ResNeXt\.three-groups: "three-groups" is not the id/);
    expect(parse({ groups: 2 })).toThrow(/\$\.groups: unknown field/);
  });

  it('plans the cells: every row on every network, the sweep only where the table has not run it, the WebGPU look only with an adapter', () => {
    const config = parallelGroupsStudy.parse(data(), FILE);
    const cells = plannedCells(config, true, false);
    const table = cells.filter((c) => c.part === 'table');
    expect(table).toHaveLength(config.networks.length * config.rows.length);
    expect(cells.filter((c) => c.part === 'sweep').map((c) => [c.network.label, c.schedule])).toEqual([
      ['ResNeXt', 'groups:4'],
      ['ResNeXt', 'groups:8'],
    ]);
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
      sweep: { network: 'BlazeFace', groups: [2, 3], planner: 'offsets/greedy-by-size' },
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
      const { problem, steps } = plannedProblem(buildZooModel(cell.source), { elementSize: 4, schedule: cell.schedule });
      expect(cell.steps).toBe(steps.length);
      expect(cell.report!.footprint).toBeGreaterThanOrEqual(cell.bound);
      expect(cell.naive).toBe(problem.records.reduce((sum, r) => sum + r.size, 0));
    }
    expect(cells[1].report?.parallel).toMatchObject({ workers: 2, steps: cells[1].steps });
  });
});
