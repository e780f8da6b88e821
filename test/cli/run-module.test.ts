import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memplan, userErrorLine } from './run-memplan.ts';

/**
 * `memplan run` with a strategy from a user's module, as the README's "Adding a strategy"
 * has users do: through the real command, so both ways it runs are covered (compiled from
 * dist/ after `npm ci`, where Node alone cannot load a .ts module; from src/ through tsx).
 */
let dir = '';

const experiment = (name: string, planner: string) => ({
  name,
  approach: 'offsets',
  models: [{ source: 'synthetic:chain?n=20&seed=1', label: 'chain' }],
  planners: ['offsets/greedy-by-size', planner],
  repetitions: 1,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-run-module-'));
  // A folder of the user's own: no package.json, so tsx compiles the module to CommonJS.
  await writeFile(
    join(dir, 'stack.ts'),
    `export default { id: 'offsets/stack', approach: 'offsets', title: 'Stack', plan(p: { records: { size: number }[] }) {
  let top = 0;
  const offsets = p.records.map((r) => { const at = top; top += r.size; return at; });
  return { approach: 'offsets', offsets, footprint: top };
} };\n`,
  );
  await writeFile(
    join(dir, 'zero.ts'),
    `export default { id: 'offsets/zero', approach: 'offsets', title: 'Zero', plan(p: { records: { size: number }[] }) {
  return { approach: 'offsets', offsets: p.records.map(() => 0), footprint: Math.max(...p.records.map((r) => r.size)) };
} };\n`,
  );
  await writeFile(join(dir, 'stack.json'), JSON.stringify(experiment('stack', 'stack.ts')));
  await writeFile(join(dir, 'zero.json'), JSON.stringify(experiment('zero', 'zero.ts')));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memplan run with a planner module', () => {
  it("runs the README worked example and a module in a folder of the user's own, every plan verified", async () => {
    const [example, own] = await Promise.all([
      memplan('run', 'examples/first-fit-experiment.json', '--out', join(dir, 'results')),
      memplan('run', join(dir, 'stack.json'), '--out', join(dir, 'results')),
    ]);
    for (const [run, planner] of [
      [example, 'offsets/first-fit'],
      [own, 'offsets/stack'],
    ] as const) {
      expect(run.status, run.stderr).toBe(0);
      const folder = run.stdout.trim().split('\n').at(-1) as string;
      const cells = (await readFile(join(folder, 'results.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { planner: string; valid: boolean });
      const mine = cells.filter((c) => c.planner === planner);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((c) => c.valid)).toBe(true);
    }
  });

  it('a module whose plan the verifier rejects: exit code 1 and the violation in one line, no stack trace', async () => {
    const run = await memplan('run', join(dir, 'zero.json'), '--out', join(dir, 'results'));
    expect(run.status).toBe(1);
    const last = run.stderr.trim().split('\n').at(-1) as string;
    expect(last).toMatch(/^memplan: offsets\/zero produced an invalid plan for chain: records .+ are live together .+ but share bytes/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('a module missing from beside the experiment file: one sentence, exit code 2', async () => {
    await writeFile(join(dir, 'missing.json'), JSON.stringify(experiment('missing', 'nowhere.ts')));
    expect(userErrorLine(await memplan('run', join(dir, 'missing.json'), '--out', join(dir, 'results')))).toMatch(/nowhere\.ts: the planner module cannot be loaded \(Cannot find module/);
  });
});

describe('--planner with a module path, in every command that takes a planner', () => {
  it('plan, exec, export --format perfetto and report --picture take the README worked example by path', async () => {
    const [planned, executed, traced, pictured] = await Promise.all([
      memplan('plan', 'zoo:blazeface', '--planner', 'examples/first-fit.ts', '--json'),
      memplan('exec', 'zoo:blazeface', '--planner', 'examples/first-fit.ts', '--repetitions', '1', '--warmup', '0', '--json'),
      memplan('export', 'zoo:blazeface', '--format', 'perfetto', '--planner', 'examples/first-fit.ts', '--to', join(dir, 'trace.json')),
      memplan('report', '--picture', 'zoo:blazeface', 'examples/first-fit.ts', '--out', join(dir, 'pictures')),
    ]);
    for (const run of [planned, executed, traced, pictured]) expect(run.status, run.stderr).toBe(0);
    const [result] = (JSON.parse(planned.stdout) as { results: { planner: string; valid: boolean }[] }).results;
    expect(result).toMatchObject({ planner: 'offsets/first-fit', valid: true });
    expect(JSON.parse(executed.stdout)).toMatchObject({ planner: 'offsets/first-fit', matchesNaive: true });
    expect(await readFile(join(dir, 'trace.json'), 'utf8')).toContain('offsets/first-fit');
    expect(pictured.stdout).toContain('offsets-first-fit');
  });

  it('a module path that is not there: one sentence, exit code 2', async () => {
    expect(userErrorLine(await memplan('plan', 'zoo:blazeface', '--planner', 'nowhere/mine.ts'))).toMatch(/nowhere\/mine\.ts: the planner module cannot be loaded/);
  });
});
