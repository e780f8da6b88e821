import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseExperiment } from '../../src/experiments/config.ts';
import { experimentSchema } from '../../src/experiments/experiment-schema.ts';
import { experimentFilesJsonSchema } from '../../src/experiments/file-schema.ts';

const base = { name: 'x', approach: 'offsets', models: ['zoo:blazeface'], planners: ['offsets/greedy-by-size'] };
const problem = (data: unknown): string => {
  try {
    parseExperiment(JSON.stringify(data), 'e.json');
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('the experiment file schema', () => {
  // Every sentence here is the one the hand-written checks gave before the schema (a number
  // where a model or a backend goes now says that a string or an object goes there).
  it.each([
    [[], '$: must be an object.'],
    ['str', '$: must be an object.'],
    [null, '$: must be an object.'],
    [{ ...base, name: 5 }, '$.name: must be a non-empty string.'],
    [{ ...base, name: '' }, '$.name: must be a non-empty string.'],
    [{ ...base, name: '  ' }, '$.name: must be a non-empty string.'],
    [{ ...base, name: 'a/b' }, '$.name: must be letters, digits, dots, dashes or underscores (it names a results folder).'],
    [{ ...base, approach: undefined }, '$.approach: must be one of shared-objects, offsets.'],
    [{ ...base, approach: 'x' }, '$.approach: must be one of shared-objects, offsets.'],
    [{ ...base, models: [] }, '$.models: must be a non-empty array.'],
    [{ ...base, models: undefined }, '$.models: must be a non-empty array.'],
    [{ ...base, models: 'zoo:x' }, '$.models: must be a non-empty array.'],
    [{ ...base, models: [5] }, '$.models[0]: must be a source (a string) or an object.'],
    [{ ...base, models: [''] }, '$.models[0]: must be a non-empty string.'],
    [{ ...base, models: [{ source: '' }] }, '$.models[0].source: must be a non-empty string.'],
    [{ ...base, models: [{}] }, '$.models[0].source: must be a non-empty string.'],
    [{ ...base, models: [{ source: 'a', optional: 'yes' }] }, '$.models[0].optional: must be true or false.'],
    [{ ...base, models: [{ source: 'a', label: 3 }] }, '$.models[0].label: must be a non-empty string.'],
    [{ ...base, models: [{ source: 'a', lable: 3 }] }, '$.models[0].lable: unknown field; expected one of source, label, optional.'],
    [{ ...base, records: [] }, '$.records: must be an object.'],
    [{ ...base, records: { elementSize: 0 } }, '$.records.elementSize: must be a whole number >= 1.'],
    [{ ...base, records: { elementSize: 1.5 } }, '$.records.elementSize: must be a whole number >= 1.'],
    [{ ...base, records: { fuseActivations: 1 } }, '$.records.fuseActivations: must be true or false.'],
    [{ ...base, records: { order: 'x' } }, '$.records.order: must be one of given, memory-aware.'],
    [{ ...base, records: { schedule: 'groups:0' } }, '$.records.schedule: must be sequential, levels or groups:K (K a whole number >= 1); got "groups:0".'],
    [{ ...base, records: { schedule: 3 } }, '$.records.schedule: must be sequential, levels or groups:K (K a whole number >= 1); got 3.'],
    [
      { ...base, records: { scratch: true } },
      '$.records.scratch: unknown field; expected one of includeGraphIO, elementSize, roundChannelsTo4, nhwc, fuseActivations, dropIdentityOps, order, schedule.',
    ],
    [{ ...base, records: { colour: 1 } }, '$.records.colour: unknown field; expected one of includeGraphIO, elementSize, roundChannelsTo4, nhwc, fuseActivations, dropIdentityOps, order, schedule.'],
    [{ ...base, planners: [] }, '$.planners: must be a non-empty array.'],
    [{ ...base, planners: [''] }, '$.planners[0]: must be a non-empty string.'],
    [{ ...base, planners: [3] }, '$.planners[0]: must be a non-empty string.'],
    [{ ...base, planners: ['no-such'] }, '$.planners[0]: unknown planner "no-such"; the closest are offsets/search, offsets/exact, offsets/naive (see `memplan list planners`).'],
    [{ ...base, backends: [] }, '$.backends: must be a non-empty array.'],
    [{ ...base, backends: ['gpu'] }, '$.backends[0].kind: "gpu" is not available in this version; use one of plan-only, cpu, cpu-parallel, webgpu, browser, remote.'],
    [{ ...base, backends: [''] }, '$.backends[0]: must be a non-empty string.'],
    [{ ...base, backends: [3] }, '$.backends[0]: must be a backend kind (a string) or an object.'],
    [{ ...base, backends: [{}] }, '$.backends[0].kind: "undefined" is not available in this version; use one of plan-only, cpu, cpu-parallel, webgpu, browser, remote.'],
    [{ ...base, backends: [{ kind: 'gpu' }] }, '$.backends[0].kind: "gpu" is not available in this version; use one of plan-only, cpu, cpu-parallel, webgpu, browser, remote.'],
    [{ ...base, backends: ['remote'] }, '$.backends[0].url: must be a non-empty string.'],
    [{ ...base, backends: [{ kind: 'plan-only', repetitions: 3 }] }, '$.backends[0].repetitions: unknown field; expected one of kind.'],
    [{ ...base, backends: [{ kind: 'cpu', repetitions: 0 }] }, '$.backends[0].repetitions: must be a whole number >= 1.'],
    [{ ...base, backends: [{ kind: 'cpu', warmup: -1 }] }, '$.backends[0].warmup: must be a whole number >= 0.'],
    [{ ...base, backends: [{ kind: 'cpu', rounds: 0 }] }, '$.backends[0].rounds: must be a whole number >= 1.'],
    [{ ...base, backends: [{ kind: 'cpu', rounds: 1.5 }] }, '$.backends[0].rounds: must be a whole number >= 1.'],
    [{ ...base, backends: [{ kind: 'cpu', peer: 1 }] }, '$.backends[0].peer: must be true or false.'],
    [{ ...base, backends: [{ kind: 'webgpu', pinCore: true }] }, '$.backends[0].pinCore: unknown field; expected one of kind, repetitions, warmup, rounds, peer, verifyByExecution.'],
    [{ ...base, backends: [{ kind: 'cpu', url: 'x' }] }, '$.backends[0].url: unknown field; expected one of kind, repetitions, warmup, rounds, peer, verifyByExecution, pinCore.'],
    [{ ...base, backends: [{ kind: 'browser', peer: true }] }, '$.backends[0].peer: times onnxruntime-node on this machine; the browser backend times the page alone.'],
    [{ ...base, backends: [{ kind: 'remote' }] }, '$.backends[0].url: must be a non-empty string.'],
    [{ ...base, backends: [{ kind: 'remote', url: 'ftp://x', token: 'abcdefghijklmnopq' }] }, '$.backends[0].url: must be http://host:port of a memplan agent.'],
    [
      { ...base, backends: [{ kind: 'remote', url: 'http://h:1', token: 'short' }] },
      "$.backends[0].token: must be the agent's token (16 characters or more), or env:NAME to read it from the environment.",
    ],
    [{ ...base, backends: [{ kind: 'remote', url: 'http://h:1', token: 'env:X', peer: true }] }, '$.backends[0].peer: times onnxruntime-node on this machine; a remote backend cannot.'],
    [{ ...base, backends: [{ kind: 'remote', url: 'http://h:1', token: 'env:X', device: 'd', backend: 'cpu' }] }, '$.backends[0].backend: a device is a browser: it runs the browser backend.'],
    [
      { ...base, backends: [{ kind: 'remote', url: 'http://h:1', token: 'env:X', backend: 'budgeted' }] },
      '$.backends[0].backend: an agent cannot serve the budgeted backend (its runs stream weights from a file that a job does not carry); it serves cpu, cpu-parallel, webgpu, browser.',
    ],
    [{ ...base, backends: [{ kind: 'remote', url: 'http://h:1', token: 'env:X', timeoutSeconds: 0 }] }, '$.backends[0].timeoutSeconds: must be a whole number >= 1.'],
    [{ ...base, repetitions: 0 }, '$.repetitions: must be a whole number >= 1.'],
    [{ ...base, repetitions: '1' }, '$.repetitions: must be a whole number >= 1.'],
    [{ ...base, seed: -1 }, '$.seed: must be a whole number >= 0.'],
    [{ ...base, alignment: 0 }, '$.alignment: must be a whole number >= 1.'],
    [{ ...base, timeLimitSeconds: 0 }, '$.timeLimitSeconds: must be a number > 0.'],
    [{ ...base, timeLimitSeconds: '1' }, '$.timeLimitSeconds: must be a number > 0.'],
    [{ ...base, title: '' }, '$.title: must be a non-empty string.'],
    [{ ...base, report: 3 }, '$.report: must be an object.'],
    [{ ...base, report: { x: 1 } }, '$.report.x: unknown field; expected one of unit, rows, reference, charts.'],
    [{ ...base, report: { charts: [] } }, '$.report.charts: must be a non-empty array.'],
    [{ ...base, report: { charts: ['pie'] } }, '$.report.charts[0]: must be one of footprint, scaling, latency, quality, memory.'],
    [{ ...base, report: { unit: 'GB' } }, '$.report.unit: must be one of MiB, MB, KiB, bytes.'],
    [{ ...base, report: { rows: [] } }, '$.report.rows: must be a non-empty array.'],
    [{ ...base, report: { rows: ['other'] } }, '$.report.rows[0]: "other" is not one of the experiment\'s planners.'],
    [{ ...base, report: { rows: [3] } }, '$.report.rows[0]: must be a non-empty string.'],
    [{ ...base, report: { reference: 3 } }, '$.report.reference: must be an object.'],
    [{ ...base, report: { reference: { a: 3 } } }, '$.report.reference.a: must be an object.'],
    [{ ...base, report: { reference: { a: { b: -1 } } } }, '$.report.reference.a.b: must be a number >= 0.'],
    [{ ...base, report: { reference: { a: { b: 'x' } } } }, '$.report.reference.a.b: must be a number >= 0.'],
    [
      { ...base, colour: 1 },
      '$.colour: unknown field; expected one of $schema, $comment, name, title, approach, models, records, planners, backends, repetitions, seed, alignment, timeLimitSeconds, report.',
    ],
    // A misspelt required field is named as unknown, as the hand check did (it looked for unknown fields first).
    [
      { name: 'x', approach: 'offsets', models: ['zoo:blazeface'], planer: ['offsets/greedy-by-size'] },
      '$.planer: unknown field; expected one of $schema, $comment, name, title, approach, models, records, planners, backends, repetitions, seed, alignment, timeLimitSeconds, report.',
    ],
    [{ ...base, models: [{ sorce: 'a' }] }, '$.models[0].sorce: unknown field; expected one of source, label, optional.'],
    [
      { ...base, backends: [{ kind: 'remote', URL: 'http://h:1', token: 'env:X' }] },
      '$.backends[0].URL: unknown field; expected one of kind, repetitions, warmup, rounds, peer, verifyByExecution, url, token, backend, label, timeoutSeconds, device.',
    ],
  ] as [unknown, string][])('%j: %s', (data, sentence) => {
    expect(problem(data)).toBe(`e.json: ${sentence}`);
  });

  it('accepts $schema, for editors', () => {
    expect(problem({ ...base, $schema: './schema.json' })).toBe('accepted');
  });

  it('is published as experiments/schema.json (npm run schema writes it)', () => {
    expect(JSON.parse(readFileSync('experiments/schema.json', 'utf8'))).toEqual(experimentFilesJsonSchema());
  });

  it('every experiment and study file names the schema, and the schema takes it', () => {
    const files = readdirSync('experiments').filter((f) => f.endsWith('.json') && f !== 'schema.json');
    expect(files.length).toBeGreaterThanOrEqual(11);
    const studies = files.filter((f) => 'study' in JSON.parse(readFileSync(`experiments/${f}`, 'utf8')));
    expect(studies.sort()).toEqual(['flexnn-budget.json', 'gemm-tiling.json', 'parallel-groups.json']);
    for (const f of files) {
      const text = readFileSync(`experiments/${f}`, 'utf8');
      expect(JSON.parse(text).$schema, f).toBe('./schema.json');
      if (!studies.includes(f)) expect(() => parseExperiment(text, `experiments/${f}`)).not.toThrow();
    }
  });

  it('tells an editor the fields, their types and their descriptions', () => {
    const schema = z.toJSONSchema(experimentSchema(), { io: 'input', unrepresentable: 'any' }) as {
      required: string[];
      properties: Record<string, { description?: string }>;
      additionalProperties: boolean;
    };
    expect(schema.required).toEqual(['name', 'approach', 'models', 'planners']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.planners.description).toMatch(/memplan list planners/);
  });
});
