import { describe, expect, it } from 'vitest';
import { loadExperiment, parseExperiment } from '../../src/experiments/config.ts';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';

const FILE = 'experiments/test.json';
const base = { name: 'x', approach: 'offsets', models: ['zoo:blazeface'], planners: ['offsets/greedy-by-size'] };
const parse = (value: unknown) => parseExperiment(JSON.stringify(value, null, 2), FILE);
const error = (value: unknown): string => {
  try {
    parse(value);
  } catch (e) {
    expect(e).toBeInstanceOf(ExperimentError);
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('experiment files', () => {
  it('load the shipped experiments', async () => {
    for (const name of ['table1', 'table2', 'scaling']) {
      const experiment = await loadExperiment(`experiments/${name}.json`);
      expect(experiment.name).toBe(name);
      expect(experiment.planners.length).toBeGreaterThan(3);
    }
    const table2 = await loadExperiment('experiments/table2.json');
    expect(table2.approach).toBe('offsets');
    expect(table2.planners.map((p) => p.ref)).toContain('shared-objects/min-cost-flow');
  });

  it('fill in defaults', () => {
    const experiment = parse(base);
    expect(experiment).toMatchObject({ title: 'x', repetitions: 5, seed: 1, alignment: 1, backends: [{ kind: 'plan-only' }] });
    expect(experiment.report).toMatchObject({ unit: 'MiB', charts: ['footprint'] });
    expect(experiment.models[0]).toEqual({ source: 'zoo:blazeface', named: 'zoo:blazeface', label: 'blazeface', optional: false });
  });

  it('name the closest ids for an unknown planner, with its JSON path', () => {
    expect(error({ ...base, planners: ['offsets/greedy-by-size', 'offsets/greedy-by-sise'] })).toMatch(
      /experiments\/test\.json: \$\.planners\[1\]: unknown planner "offsets\/greedy-by-sise"; the closest are offsets\/greedy-by-size/,
    );
  });

  it('name the JSON path of a bad field', () => {
    expect(error({ ...base, repetitions: 0 })).toMatch(/\$\.repetitions: must be a whole number >= 1/);
    expect(error({ ...base, approach: 'textures' })).toMatch(/\$\.approach: must be one of shared-objects, offsets/);
    expect(error({ ...base, models: [{ source: 'zoo:blazeface', lable: 'x' }] })).toMatch(/\$\.models\[0\]\.lable: unknown field/);
    expect(error({ ...base, records: { elementSize: -4 } })).toMatch(/\$\.records\.elementSize/);
    expect(error({ ...base, backends: [{ kind: 'cuda' }] })).toMatch(/\$\.backends\[0\]\.kind: "cuda" is not available/);
    const remote = { kind: 'remote', url: 'http://127.0.0.1:7878', token: '0123456789abcdef' };
    expect(parse({ ...base, backends: [{ ...remote, backend: 'webgpu' }] }).backends[0]).toMatchObject({ kind: 'remote', backend: 'webgpu', label: 'remote:webgpu@127.0.0.1:7878' });
    expect(error({ ...base, backends: [{ ...remote, backend: 'budgeted' }] })).toBe(
      'experiments/test.json: $.backends[0].backend: an agent cannot serve the budgeted backend (its runs stream weights from a file that a job does not carry); it serves cpu, cpu-parallel, webgpu, browser.',
    );
    expect(error({ ...base, backends: [{ ...remote, backend: 'cuda' }] })).toMatch(/\$\.backends\[0\]\.backend: an agent cannot serve the cuda backend; it serves cpu, /);
    expect(error({ ...base, report: { unit: 'GB' } })).toMatch(/\$\.report\.unit/);
    expect(error({ ...base, report: { rows: ['offsets/naive'] } })).toMatch(/\$\.report\.rows\[0\]: "offsets\/naive" is not one of the experiment's planners/);
    expect(parse({ ...base, backends: [{ kind: 'cpu', pinCore: true }] }).backends[0]).toMatchObject({ kind: 'cpu', pinCore: true });
    expect(error({ ...base, backends: [{ kind: 'webgpu', pinCore: true }] })).toMatch(/\$\.backends\[0\]\.pinCore: unknown field/);
    expect(error({ ...base, backends: [{ kind: 'cpu', pinCore: 'yes' }] })).toMatch(/\$\.backends\[0\]\.pinCore: must be true or false/);
    expect(error({ ...base, colour: 'red' })).toMatch(/\$\.colour: unknown field/);
    expect(error({ ...base, name: 'a b' })).toMatch(/\$\.name/);
  });

  it('take a time limit for search planners, 10 s by default, and refuse one that is not > 0', () => {
    expect(parse(base).timeLimitSeconds).toBe(10);
    expect(parse({ ...base, timeLimitSeconds: 0.5 }).timeLimitSeconds).toBe(0.5);
    expect(error({ ...base, timeLimitSeconds: 0 })).toMatch(/\$\.timeLimitSeconds: must be a number > 0\./);
    expect(error({ ...base, timeLimitSeconds: '10' })).toMatch(/\$\.timeLimitSeconds: must be a number > 0\./);
  });

  it('take the operator order among the record options', () => {
    expect(parse({ ...base, records: { order: 'memory-aware', fuseActivations: true } }).records).toEqual({ order: 'memory-aware', fuseActivations: true });
    expect(parse(base).records.order).toBeUndefined();
    expect(error({ ...base, records: { order: 'fastest' } })).toMatch(/experiments\/test\.json: \$\.records\.order: must be one of given, memory-aware\./);
    expect(error({ ...base, records: { order: true } })).toMatch(/\$\.records\.order: must be one of given, memory-aware\./);
  });

  it('take the schedule among the record options, one line for anything but sequential, levels or groups:K', () => {
    expect(parse({ ...base, records: { schedule: 'groups:2' } }).records).toEqual({ schedule: 'groups:2' });
    expect(parse({ ...base, records: { schedule: 'levels' } }).records.schedule).toBe('levels');
    for (const bad of ['groups:0', 'groups:x', 2]) {
      expect(error({ ...base, records: { schedule: bad } })).toMatch(/experiments\/test\.json: \$\.records\.schedule: must be sequential, levels or groups:K \(K a whole number >= 1\); got .*\./);
    }
  });

  it('give line and column for bad JSON', () => {
    expect(() => parseExperiment('{\n  "name": "x",\n  "approach" "offsets"\n}', FILE)).toThrow(/experiments\/test\.json:3:14: invalid JSON/);
  });

  it('resolve paths relative to the experiment file; user planners are modules', () => {
    const experiment = parse({ ...base, models: ['../traces/a.csv'], planners: ['./mine.ts'] });
    expect(experiment.models[0].source).toMatch(/\/traces\/a\.csv$/);
    expect(experiment.models[0].source).not.toContain('experiments');
    expect(experiment.planners[0]).toMatchObject({ module: true });
    expect(experiment.planners[0].ref).toMatch(/\/experiments\/mine\.ts$/);
    // What every machine agrees on, wherever the checkout lies: the paths as the file names them.
    expect(experiment.models[0].named).toBe('../traces/a.csv');
    expect(experiment.planners[0].named).toBe('mine.ts');
  });
});
