import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memplanHere, ROOT, userErrorLine } from './run-memplan.ts';

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
  const runs = await Promise.all([memplanHere('run', experimentFile, '--out', out), ...[0, 1, 2, 3].map((i) => memplanHere('run', experimentFile, '--out', out, '--shard', `${i}/4`))]);
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
    const merged = await memplanHere('merge', ...shards, '--to', join(dir, 'merged'));
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout.trim()).toBe(join(dir, 'merged'));
    // Timings differ between runs; every other field of every cell, and the order, are the same.
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ timeMs: _t, ...rest }) => rest);
    expect(strip(await cells(join(dir, 'merged')))).toEqual(strip(await cells(whole)));
    for (const run of [whole, join(dir, 'merged')]) {
      const report = await memplanHere('report', run);
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

  it("expands a * in the shards' folder name itself, as a container's args need (no shell), as the Kubernetes example passes it", async () => {
    // The example's merge step, as the container runs it: the pattern reaches memplan unexpanded.
    const manifest = await readFile('examples/kubernetes/indexed-job.yaml', 'utf8');
    expect(manifest).toContain('"merge","/results/table2/*-shard-*-of-4"');
    const pattern = join(dirname(shards[0]), '*-shard-*-of-4');
    const merged = await memplanHere('merge', pattern, '--to', join(dir, 'merged-by-pattern'));
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('merged 4 shards');
    expect(await cells(join(dir, 'merged-by-pattern'))).toHaveLength((await cells(whole)).length);
  }, 60_000);

  it('reports a missing shard in one sentence and writes nothing', async () => {
    const to = join(dir, 'three-of-four');
    const run = await memplanHere('merge', shards[0], shards[1], shards[3], '--to', to);
    expect(userErrorLine(run)).toMatch(/shard 2\/4 is missing/);
    expect(await readdir(dir)).not.toContain('three-of-four');
  });

  it('reports a shard given twice, a folder that is not a shard, and a merge over an existing run', async () => {
    expect(userErrorLine(await memplanHere('merge', shards[0], shards[0], shards[1], shards[2], '--to', join(dir, 'x')))).toMatch(/shard 0\/4 is given twice/);
    expect(userErrorLine(await memplanHere('merge', whole, shards[0], '--to', join(dir, 'y')))).toMatch(/not a shard/);
    expect(userErrorLine(await memplanHere('merge', ...shards, '--to', whole))).toMatch(/already exists/);
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
    expect(userErrorLine(await memplanHere('merge', ...copies, '--to', join(dir, 'z')))).toMatch(/cells missing \(a shard did not finish: run it again with --resume\): .* \(shard 1,/);
  });

  it('refuses shards of another configuration', async () => {
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ ...experiment, repetitions: 2 }));
    const run = await memplanHere('run', other, '--out', join(dir, 'other'), '--shard', '1/4');
    expect(run.status, run.stderr).toBe(0);
    const foreign = lastLine(run.stdout);
    expect(userErrorLine(await memplanHere('merge', shards[0], foreign, shards[2], shards[3], '--to', join(dir, 'w')))).toMatch(/ran another configuration/);
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

/** A copy of the shards in `folder`, with `change` applied to shard i's run.json and results lines. */
async function copyShards(folder: string, change: (i: number, info: { shard: { order: string[]; assigned: string[] } }, lines: string[]) => string[] | void = () => undefined): Promise<string[]> {
  const copies = shards.map((_, i) => join(dir, folder, `run-shard-${i}-of-4`));
  for (const [i, shard] of shards.entries()) {
    await mkdir(copies[i], { recursive: true });
    const info = JSON.parse(await readFile(join(shard, 'run.json'), 'utf8'));
    const lines = (await readFile(join(shard, 'results.jsonl'), 'utf8')).trim().split('\n');
    const kept = change(i, info, lines) ?? lines;
    await writeFile(join(copies[i], 'run.json'), JSON.stringify(info));
    await writeFile(join(copies[i], 'results.jsonl'), `${kept.join('\n')}\n`);
  }
  return copies;
}

describe('memplan merge proves that the shards cover every cell exactly once', () => {
  const printable = (key: string): string => key.split('\u0000').join(' / ');

  it('refuses shards whose lists of cells differ', async () => {
    const copies = await copyShards('disagree', (i, info) => {
      if (i === 2) info.shard.order = info.shard.order.slice(1);
    });
    expect(userErrorLine(await memplanHere('merge', ...copies, '--to', join(dir, 'disagree-merged')))).toMatch(
      /^memplan: the shards disagree on the experiment's cells \(cell 1 is .+ in .+run-shard-2-of-4 and .+ in .+run-shard-0-of-4\); run every shard of the sweep with one memplan version and experiment file\.$/,
    );
  });

  it('refuses a cell assigned to two shards, and one assigned to none (shards that split on what their machines had)', async () => {
    let moved = '';
    const twice = await copyShards('twice', (i, info) => {
      if (i === 0) moved = info.shard.assigned[0];
      if (i === 1) info.shard.assigned.push(moved);
    });
    expect(userErrorLine(await memplanHere('merge', ...twice, '--to', join(dir, 'twice-merged')))).toBe(
      `memplan: cells assigned to two shards: ${printable(moved)} (shards 0 and 1); the shards split the cells differently, so run them again with one memplan version.`,
    );
    let dropped = '';
    const none = await copyShards('none', (i, info, lines) => {
      if (i !== 3) return undefined;
      dropped = info.shard.assigned.shift() as string;
      const [model, planner] = dropped.split('\u0000');
      return lines.filter((l) => !(JSON.parse(l).model === model && JSON.parse(l).planner === planner));
    });
    expect(userErrorLine(await memplanHere('merge', ...none, '--to', join(dir, 'none-merged')))).toBe(
      `memplan: cells assigned to no shard: ${printable(dropped)}; the shards split the cells differently, so run them again with one memplan version.`,
    );
    expect(await readdir(dir)).not.toContain('none-merged');
  });

  it('refuses a shard whose results.jsonl holds a cell twice, naming the cell and the folder', async () => {
    let cell = '';
    const copies = await copyShards('doubled', (i, _info, lines) => {
      if (i !== 1) return undefined;
      const first = JSON.parse(lines[0]);
      cell = `${first.model} / ${first.planner} / ${first.backend}`;
      return [...lines, lines[0]];
    });
    const line = userErrorLine(await memplanHere('merge', ...copies, '--to', join(dir, 'doubled-merged')));
    const lineCount = (await readFile(join(copies[1], 'results.jsonl'), 'utf8')).trim().split('\n').length;
    expect(line).toBe(`memplan: ${copies[1]} holds the cell ${cell} twice (results.jsonl lines 1 and ${lineCount}): two runs wrote into it at once, so run the experiment again into a new folder.`);
  });
});

/**
 * An optional source (a trace file) that one machine has and another lacks: the split must
 * not move, and merge must not lose the cells of the machine that lacked it.
 */
describe('memplan merge with an optional source absent on some machines', () => {
  let base = '';
  let trace = '';
  let file = '';
  const runs: Record<string, string> = {};
  const traceText = 'id,lower,upper,size\na,0,2,64\nb,1,3,32\nc,2,4,128\nd,3,5,16\ne,0,5,8\n';
  const optional = {
    name: 'optional',
    title: 'Optional trace',
    approach: 'offsets',
    models: [
      { source: 'zoo:blazeface', label: 'BlazeFace' },
      { source: 'synthetic:chain?n=20&seed=1', label: 'chain' },
      { source: 'traces/t.csv', label: 'trace', optional: true },
    ],
    planners: ['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/greedy-in-order'],
    repetitions: 1,
  };
  const shardInfo = async (run: string) =>
    JSON.parse(await readFile(join(run, 'run.json'), 'utf8')).shard as { order: string[]; assigned: string[]; absentSources: string[]; skipped: { cell: string; because: string }[] };
  const run = async (name: string, shard: string, ...extra: string[]): Promise<void> => {
    const done = await memplanHere('run', file, '--out', join(base, name), '--shard', shard, ...extra);
    expect(done.status, done.stderr).toBe(0);
    runs[`${name} ${shard}`] = lastLine(done.stdout);
  };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'memplan-optional-'));
    trace = join(base, 'traces', 't.csv');
    file = join(base, 'optional.json');
    await writeFile(file, JSON.stringify(optional));
    await mkdir(join(base, 'traces'));
    // Machines that have the trace: shard 0 of sweep "half", shard 1 of sweep "full".
    await writeFile(trace, traceText);
    await Promise.all([run('half', '0/2'), run('full', '1/2')]);
    // Machines that lack it: shard 1 of "half", both shards of "nowhere".
    await unlink(trace);
    await Promise.all([run('half', '1/2'), run('nowhere', '0/2'), run('nowhere', '1/2')]);
  }, 120_000);

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('splits the cells the same on a machine with the trace and on one without', async () => {
    const [having, lacking] = await Promise.all([shardInfo(runs['full 1/2']), shardInfo(runs['half 1/2'])]);
    expect(lacking.order).toEqual(having.order);
    expect(lacking.assigned).toEqual(having.assigned);
    expect(having.order).toHaveLength(9);
    // The case this sweep tests: each shard owns some of the trace's cells.
    const [zero, one] = await Promise.all([shardInfo(runs['half 0/2']), shardInfo(runs['half 1/2'])]);
    // Cells and sources as the experiment file names them (the same wherever a machine keeps the file).
    expect(zero.assigned.filter((k) => k.startsWith('traces/t.csv\u0000')).length).toBeGreaterThan(0);
    expect(one.assigned.filter((k) => k.startsWith('traces/t.csv\u0000')).length).toBeGreaterThan(0);
    // The shard that lacked it says so, and which of its cells it skipped for it.
    expect(one.absentSources).toEqual(['traces/t.csv']);
    expect(one.skipped.map((s) => s.cell).sort()).toEqual(one.assigned.filter((k) => k.startsWith('traces/t.csv\u0000')).sort());
    expect(one.skipped.every((s) => s.because === 'source-absent')).toBe(true);
    expect(zero.absentSources).toEqual([]);
    expect(zero.skipped).toEqual([]);
  });

  it('refuses to merge when the trace was on one machine and not the other, naming the cells and the shard to run again', async () => {
    const to = join(base, 'half-merged');
    const line = userErrorLine(await memplanHere('merge', runs['half 0/2'], runs['half 1/2'], '--to', to));
    const lacking = (await shardInfo(runs['half 1/2'])).skipped.map((s) => s.cell.split('\u0000').join(' / '));
    expect(line).toBe(
      `memplan: traces/t.csv was present on the machine of shard 0 but absent on that of shard 1 (${runs['half 1/2']}: ${lacking.join('; ')}), whose cells of it have no result; run shard 1/2 again with --resume on a machine that has the file.`,
    );
    expect(existsSync(to)).toBe(false);
  });

  it('merges once that shard ran again where the trace is: all 9 cells', async () => {
    await writeFile(trace, traceText);
    try {
      const again = await memplanHere('run', file, '--out', join(base, 'half'), '--shard', '1/2', '--resume');
      expect(again.status, again.stderr).toBe(0);
      expect(lastLine(again.stdout)).toBe(runs['half 1/2']);
    } finally {
      await unlink(trace);
    }
    const to = join(base, 'half-merged-again');
    const merged = await memplanHere('merge', runs['half 0/2'], runs['half 1/2'], '--to', to);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stderr).toBe('memplan: merged 2 shards, 9 cells\n');
    expect(await cells(to)).toHaveLength(9);
    expect(JSON.parse(await readFile(join(to, 'run.json'), 'utf8')).skipped).toBeUndefined();
  }, 60_000);

  it('merges when no machine had the trace, saying in run.json which cells were skipped and why', async () => {
    const to = join(base, 'nowhere-merged');
    const merged = await memplanHere('merge', runs['nowhere 0/2'], runs['nowhere 1/2'], '--to', to);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stderr).toBe('memplan: merged 2 shards, 6 cells; 3 skipped on every machine (why: the skipped list in its run.json)\n');
    expect((await cells(to)).map((c) => c.model).includes(trace)).toBe(false);
    const info = JSON.parse(await readFile(join(to, 'run.json'), 'utf8'));
    expect(info.skipped).toEqual(optional.planners.map((planner) => ({ model: 'traces/t.csv', planner, backend: 'plan-only', why: "traces/t.csv is absent on every shard's machine" })));
    const report = await memplanHere('report', to);
    expect(report.status, report.stderr).toBe(0);
  }, 60_000);

  it('merges shards run from checkouts at different paths, naming the trace as the first shard did', async () => {
    const checkouts = [join(base, 'alice', 'memplan'), join(base, 'cluster', 'job-17', 'memplan')];
    for (const dir of checkouts) {
      await mkdir(join(dir, 'traces'), { recursive: true });
      await writeFile(join(dir, 'traces', 't.csv'), traceText);
      await writeFile(join(dir, 'optional.json'), JSON.stringify(optional));
    }
    const shards = await Promise.all(
      checkouts.map(async (dir, k) => {
        const done = await memplanHere('run', join(dir, 'optional.json'), '--out', join(base, 'paths'), '--shard', `${k}/2`);
        expect(done.status, done.stderr).toBe(0);
        return lastLine(done.stdout);
      }),
    );
    const to = join(base, 'paths-merged');
    const merged = await memplanHere('merge', ...shards, '--to', to);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stderr).toBe('memplan: merged 2 shards, 9 cells\n');
    const traced = (await cells(to)).map((c) => String(c.model)).filter((model) => model.endsWith('t.csv'));
    expect(traced).toEqual(optional.planners.map(() => join(checkouts[0], 'traces', 't.csv')));
  }, 60_000);
});
