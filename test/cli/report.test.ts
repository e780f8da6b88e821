import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memplanHere, userErrorLine } from './run-memplan.ts';

/**
 * `memplan report` given something that is not a run folder: one sentence saying what is
 * wrong with it, exit code 2, and no stack trace (a run folder's good report is tested with
 * the runs that make one: merge.test.ts, the studies' tests).
 */
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-report-'));
  const folder = async (name: string, runJson?: string, results?: string): Promise<void> => {
    await mkdir(join(dir, name));
    if (runJson !== undefined) await writeFile(join(dir, name, 'run.json'), runJson);
    if (results !== undefined) await writeFile(join(dir, name, 'results.jsonl'), results);
  };
  await folder('empty');
  await folder('torn', '{"experiment": ');
  await folder('no-config', '{}');
  await folder('unknown-study', '{"study": "no-such-study"}');
  const config = { name: 'x', title: 'X', approach: 'offsets', models: [], planners: [], report: {} };
  await folder('damaged-results', JSON.stringify({ config }), '{"cell": 1}\nnot json\n{"cell": 2}\n');
  // Two runs that wrote into one folder at once: the same cell on lines 1 and 3.
  const cell = (planner: string): string => `${JSON.stringify({ model: 'zoo:blazeface', planner, backend: 'plan-only' })}\n`;
  await folder('doubled', JSON.stringify({ config }), `${cell('offsets/naive')}${cell('offsets/greedy-by-size')}${cell('offsets/naive')}`);
  // A shard whose every source was absent on its machine: run.json, no cell.
  await folder('no-cells', JSON.stringify({ config: { ...config, report: { charts: ['scaling'] } } }), '');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memplan report on a folder that is not a run', () => {
  it('names a missing folder, an empty one and a plain file as not run folders', async () => {
    const targets = [join(dir, 'missing'), join(dir, 'empty'), join(dir, 'torn', 'run.json')];
    const runs = await Promise.all(targets.map((target) => memplanHere('report', target)));
    runs.forEach((run, k) => {
      expect(userErrorLine(run)).toBe(`memplan: ${targets[k]}: not a run folder (it has no run.json); run folders are results/<experiment>/<run-id>, written by memplan run.`);
    });
  });

  it('says which file of a damaged run folder is damaged', async () => {
    const [torn, noConfig, damaged] = await Promise.all(['torn', 'no-config', 'damaged-results'].map((name) => memplanHere('report', join(dir, name))));
    expect(userErrorLine(torn)).toMatch(new RegExp(`^memplan: ${join(dir, 'torn', 'run.json')}: not valid JSON \\(.+\\); the run folder is damaged\\.$`));
    expect(userErrorLine(noConfig)).toBe(`memplan: ${join(dir, 'no-config', 'run.json')}: holds no experiment configuration (config); the run folder is damaged.`);
    expect(userErrorLine(damaged)).toMatch(new RegExp(`^memplan: ${join(dir, 'damaged-results', 'results.jsonl')}:2: not a JSON line`));
  });

  it('refuses a folder whose results.jsonl holds a cell twice, naming the cell and the folder', async () => {
    const folder = join(dir, 'doubled');
    expect(userErrorLine(await memplanHere('report', folder))).toBe(
      `memplan: ${folder} holds the cell zoo:blazeface / offsets/naive / plan-only twice (results.jsonl lines 1 and 3): two runs wrote into it at once, so run the experiment again into a new folder.`,
    );
  });

  it('says in one sentence that a run without a finished cell has nothing to report (no chart of nothing)', async () => {
    const folder = join(dir, 'no-cells');
    expect(userErrorLine(await memplanHere('report', folder))).toBe(
      `memplan: ${folder} holds no finished cell (every source absent here, or the run stopped before its first cell); nothing to report.`,
    );
  });

  it('names the studies it knows when a run folder names another', async () => {
    const line = userErrorLine(await memplanHere('report', join(dir, 'unknown-study')));
    expect(line).toMatch(/its run\.json names the study "no-such-study", which this build has no report for \(known: [a-z-]+(, [a-z-]+)+\)\.$/);
    expect(line).toContain('gemm-tiling');
  });
});

describe('memplan report on an experiment folder', () => {
  it('reports its latest run, and says which', async () => {
    const file = join(dir, 'tiny.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'tiny', approach: 'offsets', models: [{ source: 'synthetic:chain?n=8&seed=1', label: 'chain' }], planners: ['offsets/greedy-by-size'], repetitions: 1 }),
    );
    const out = join(dir, 'runs');
    const first = await memplanHere('run', file, '--out', out);
    // Run ids are whole seconds: the second run must get a later one.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await memplanHere('run', file, '--out', out);
    expect([first.status, second.status]).toEqual([0, 0]);
    const latest = second.stdout.trim().split('\n').at(-1) as string;
    const report = await memplanHere('report', join(out, 'tiny'));
    expect(report.status, report.stderr).toBe(0);
    expect(report.stderr).toContain(`memplan: reporting the latest run of ${join(out, 'tiny')}: ${latest}`);
    expect(report.stdout).toContain('| Greedy by Size |');
  });
});

describe('memplan report --picture', () => {
  it('draws several planners side by side as SVG, PNG, PDF and spec, named after a ../ source without a leading dot', async () => {
    const sub = join(dir, 'sub');
    await mkdir(sub, { recursive: true });
    await writeFile(join(dir, '.hidden-trace.csv'), 'id,lower,upper,size\na,0,2,64\nb,1,3,32\nc,2,4,64\n');
    const out = join(dir, 'pictures');
    const run = await memplanHere('report', '--picture', join(sub, '..', '.hidden-trace.csv'), 'offsets/greedy-by-size', 'offsets/naive', '--out', out);
    expect(run.status, run.stderr).toBe(0);
    const written = run.stdout.trim().split('\n');
    expect(written.map((f) => f.slice(f.lastIndexOf('.')))).toEqual(['.svg', '.png', '.pdf', '.json']);
    for (const file of written) expect(file.startsWith(join(out, 'hidden-trace-offsets-greedy-by-size-offsets-naive'))).toBe(true);
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(written[2])).subarray(0, 5).toString()).toBe('%PDF-');
    const svg = await readFile(written[0], 'utf8');
    expect(svg).toContain('Greedy by Size');
    expect(svg).toContain('Naive');
  });
});
