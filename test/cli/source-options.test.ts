import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { plannedProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplanHere, userErrorLine } from './run-memplan.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-schedule-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface PlanReport {
  tensors: number;
  operators: number;
  results: { planner: string; valid: boolean; offsets: number[] }[];
}

describe.concurrent('--schedule', () => {
  it('plan --schedule groups:2 --json: verified plans over steps, no two tensors of a step in the same bytes', async ({ expect }) => {
    const source = 'zoo:resnext-50-paths?input=32';
    const run = await memplanHere(
      'plan',
      source,
      '--schedule',
      'groups:2',
      '--element-size',
      '4',
      '--planner',
      'offsets/greedy-by-size,shared-objects/greedy-by-size-improved,offsets/best-of',
      '--json',
    );
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as PlanReport;
    const { problem, steps } = plannedProblem(buildZooModel(source), { elementSize: 4, schedule: 'groups:2' });
    expect(report.operators).toBe(steps.length);
    expect(report.operators).toBeLessThan(buildZooModel(source).nodes.length);
    expect(report.tensors).toBe(problem.records.length);
    for (const result of report.results) {
      expect(result.valid).toBe(true);
      const at = new Map(problem.records.map((r, i) => [r.id, [result.offsets[i], result.offsets[i] + r.size]]));
      for (const step of steps) {
        const used = [...new Set(step.flatMap((n) => [...n.inputs, ...n.outputs]))].filter((name) => at.has(name)).map((name) => at.get(name)!);
        used.sort((a, b) => a[0] - b[0]);
        for (let k = 1; k < used.length; k++) expect(used[k][0]).toBeGreaterThanOrEqual(used[k - 1][1]);
      }
    }
  });

  it('export --schedule levels writes the records over steps', async ({ expect }) => {
    const to = join(dir, 'levels.json');
    const run = await memplanHere('export', 'zoo:googlenet', '--schedule', 'levels', '--to', to);
    expect(run.status).toBe(0);
    const records = JSON.parse(await readFile(to, 'utf8')) as { id: string; first: number; last: number }[];
    const { problem } = plannedProblem(buildZooModel('zoo:googlenet'), { schedule: 'levels' });
    expect(records.map((r) => [r.id, r.first, r.last])).toEqual(problem.records.map((r) => [r.id, r.first, r.last]));
  });

  it('gives one line and exit code 2 for anything but sequential, levels or groups:K', async ({ expect }) => {
    const runs = await Promise.all(['groups:0', 'groups:x', 'parallel'].map((value) => memplanHere('plan', 'zoo:blazeface', '--schedule', value)));
    for (const [k, value] of ['groups:0', 'groups:x', 'parallel'].entries()) {
      expect(userErrorLine(runs[k])).toBe(`memplan: --schedule must be sequential, levels or groups:K (K a whole number >= 1), got "${value}".`);
    }
  });
});
