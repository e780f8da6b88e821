import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memplan, ROOT, userErrorLine } from './run-memplan.ts';

/**
 * A sweep split over four processes (as a Slurm array or an Indexed Job runs it) and
 * joined with `memplan merge` gives the same tables as one run on one machine.
 */
let dir = '';
let experimentFile = '';
let whole = '';
let shards: string[] = [];

const experiment = {
  name: 'sharded',
  title: 'Sharded sweep',
  approach: 'shared-objects',
  models: [
    { source: 'zoo:mobilenet-v1', label: 'MobileNet v1' },
    { source: 'zoo:mobilenet-v2', label: 'MobileNet v2' },
    { source: 'zoo:posenet', label: 'PoseNet' },
    { source: 'zoo:blazeface', label: 'BlazeFace' },
    { source: 'synthetic:chain?n=40&seed=3', label: 'chain' },
  ],
  planners: ['shared-objects/greedy-by-size', 'shared-objects/greedy-by-breadth', 'shared-objects/min-cost-flow', 'shared-objects/naive'],
  repetitions: 1,
};

const lastLine = (text: string): string => text.trim().split('\n').at(-1) as string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-shards-'));
  experimentFile = join(dir, 'sharded.json');
  await writeFile(experimentFile, JSON.stringify(experiment));
  const out = join(dir, 'results');
  const runs = await Promise.all([
    memplan('run', experimentFile, '--out', out),
    ...[0, 1, 2, 3].map((i) => memplan('run', experimentFile, '--out', out, '--shard', `${i}/4`)),
  ]);
  for (const run of runs) expect(run.status, run.stderr).toBe(0);
  whole = lastLine(runs[0].stdout);
  shards = runs.slice(1).map((run) => lastLine(run.stdout));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cells = async (run: string): Promise<Record<string, unknown>[]> =>
  (await readFile(join(run, 'results.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('memplan run --shard and memplan merge', () => {
  it('gives each shard its own run folder and a share of the cells, together all of them once', async () => {
    shards.forEach((shard, i) => expect(shard).toMatch(new RegExp(`-shard-${i}-of-4$`)));
    const shares = await Promise.all(shards.map(cells));
    for (const share of shares) expect(share.length).toBeGreaterThan(0);
    expect(shares.flat()).toHaveLength(experiment.models.length * experiment.planners.length);
  });

  it('merges four shards into the tables of one unsharded run, byte for byte', async () => {
    const merged = await memplan('merge', ...shards, '--to', join(dir, 'merged'));
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout.trim()).toBe(join(dir, 'merged'));
    // Timings differ between runs; every other field of every cell, and the order, are the same.
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ timeMs: _t, ...rest }) => rest);
    expect(strip(await cells(join(dir, 'merged')))).toEqual(strip(await cells(whole)));
    for (const run of [whole, join(dir, 'merged')]) {
      const report = await memplan('report', run);
      expect(report.status, report.stderr).toBe(0);
    }
    for (const file of ['sharded.md', 'sharded.csv', 'sharded.tex']) {
      const [one, joined] = await Promise.all([readFile(join(whole, 'report', file), 'utf8'), readFile(join(dir, 'merged', 'report', file), 'utf8')]);
      expect(joined).toBe(one);
    }
    const info = JSON.parse(await readFile(join(dir, 'merged', 'run.json'), 'utf8'));
    expect(info.merged.count).toBe(4);
    expect(info.merged.shards.map((s: { index: number }) => s.index).sort()).toEqual([0, 1, 2, 3]);
    expect(info.shard).toBeUndefined();
  }, 60_000);

  it('reports a missing shard in one sentence and writes nothing', async () => {
    const to = join(dir, 'three-of-four');
    const run = await memplan('merge', shards[0], shards[1], shards[3], '--to', to);
    expect(userErrorLine(run)).toMatch(/shard 2\/4 is missing/);
    expect(await readdir(dir)).not.toContain('three-of-four');
  });

  it('reports a shard given twice, a folder that is not a shard, and a merge over an existing run', async () => {
    expect(userErrorLine(await memplan('merge', shards[0], shards[0], shards[1], shards[2], '--to', join(dir, 'x')))).toMatch(/shard 0\/4 is given twice/);
    expect(userErrorLine(await memplan('merge', whole, shards[0], '--to', join(dir, 'y')))).toMatch(/not a shard/);
    expect(userErrorLine(await memplan('merge', ...shards, '--to', whole))).toMatch(/already exists/);
  });

  it('reports cells a shard did not finish', async () => {
    const torn = join(dir, 'torn');
    const copies = shards.map((_, i) => join(torn, `run-shard-${i}-of-4`));
    // Shard 1 without its last cell, as a shard killed before it finished leaves it.
    for (const [i, shard] of shards.entries()) {
      await mkdir(copies[i], { recursive: true });
      await copyFile(join(shard, 'run.json'), join(copies[i], 'run.json'));
      const lines = (await readFile(join(shard, 'results.jsonl'), 'utf8')).trim().split('\n');
      await writeFile(join(copies[i], 'results.jsonl'), `${(i === 1 ? lines.slice(0, -1) : lines).join('\n')}\n`);
    }
    expect(userErrorLine(await memplan('merge', ...copies, '--to', join(dir, 'z')))).toMatch(/cells missing \(a shard did not finish: run it again with --resume\): .* \(shard 1,/);
  });

  it('refuses shards of another configuration', async () => {
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ ...experiment, repetitions: 2 }));
    const run = await memplan('run', other, '--out', join(dir, 'other'), '--shard', '1/4');
    expect(run.status, run.stderr).toBe(0);
    const foreign = lastLine(run.stdout);
    expect(userErrorLine(await memplan('merge', shards[0], foreign, shards[2], shards[3], '--to', join(dir, 'w')))).toMatch(/ran another configuration/);
  }, 30_000);

  it('takes the shard from Slurm array variables', async () => {
    const out = join(dir, 'slurm');
    const status = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['bin/memplan.js', 'run', experimentFile, '--out', out], {
        cwd: ROOT,
        env: { ...process.env, SLURM_ARRAY_TASK_ID: '12', SLURM_ARRAY_TASK_MIN: '10', SLURM_ARRAY_TASK_COUNT: '4' },
        stdio: 'ignore',
      });
      child.on('close', resolve);
    });
    expect(status).toBe(0);
    const [folder] = await readdir(join(out, 'sharded'));
    expect(folder).toMatch(/-shard-2-of-4$/);
    const mine = (await cells(join(out, 'sharded', folder))).map((c) => `${c.model} ${c.planner}`).sort();
    const same = (await cells(shards[2])).map((c) => `${c.model} ${c.planner}`).sort();
    expect(mine).toEqual(same);
  }, 30_000);
});
