import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullDiskAvailable, fullDiskFolder, memplanOnFullDisk } from '../fixtures/full-disk.ts';
import { memplanHere, ROOT, userErrorLine, type CommandRun } from './run-memplan.ts';

/**
 * `memplan run` as a user runs it, where a run could lose or double cells: a second writer
 * in the same folder, a disk that fills up mid-run, a shard count beyond the cells.
 */
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-run-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** 30 cells of small synthetic problems and fast planners: a run takes a few seconds. */
const models = Array.from({ length: 10 }, (_, k) => ({ source: `synthetic:chain?n=30&seed=${k + 1}`, label: `chain ${k + 1}` }));
const experiment = (name: string, planners: readonly string[]) => ({ name, approach: 'offsets', models, planners, repetitions: 1 });

const lines = async (path: string): Promise<Record<string, unknown>[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The run's error alone: progress lines (`<experiment> k/n ...`, one per cell when stderr is no terminal, and `<experiment>: ...` notes) are not errors. */
const errorOfRun = (run: CommandRun, name: string): string => userErrorLine({ ...run, stderr: run.stderr.replace(new RegExp(`^${name}(:| \\d+/\\d+) .*\\n`, 'gm'), '') });

describe('memplan run --resume while the run still goes', () => {
  it('is refused, naming the folder and the pid of the run; the run keeps its cells once, and ends cleanly on Ctrl-C', async () => {
    // A planner that pauses while MEMPLAN_TEST_PAUSE_MS says so: the first run is slow, the resume is not.
    const planner = join(dir, 'slow-naive.ts');
    await writeFile(
      planner,
      [
        `import { findPlanner } from ${JSON.stringify(join(ROOT, 'src/planners/registry.ts'))};`,
        `const naive = findPlanner('offsets/naive');`,
        `const pause = Number(process.env.MEMPLAN_TEST_PAUSE_MS ?? 0);`,
        `export default { ...naive, id: 'offsets/slow-naive', title: 'Slow naive', plan(problem: any, options: any) {`,
        `  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);`,
        `  return naive.plan(problem, options);`,
        `} };`,
      ].join('\n'),
    );
    const file = join(dir, 'slow.json');
    await writeFile(file, JSON.stringify(experiment('slow', ['slow-naive.ts'])));
    const out = join(dir, 'slow-results');
    // 10 cells of 2 s: long enough to start two more commands (each takes seconds to start here) before it ends.
    const first = spawn(process.execPath, ['bin/memplan.js', 'run', file, '--out', out], { cwd: ROOT, env: { ...process.env, MEMPLAN_TEST_PAUSE_MS: '2000' }, stdio: 'ignore' });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => first.on('close', (code, signal) => resolve({ code, signal })));
    let folder = '';
    for (let waited = 0; folder === '' || !existsSync(join(folder, 'run.lock')); waited += 50) {
      if (waited > 60_000) throw new Error('the first run never took its folder');
      const runs = existsSync(join(out, 'slow')) ? await readdir(join(out, 'slow')) : [];
      if (runs.length > 0) folder = join(out, 'slow', runs[0]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const second = await memplanHere('run', file, '--out', out, '--resume');
    expect(userErrorLine(second)).toMatch(new RegExp(`^memplan: ${folder} is being written by memplan pid ${first.pid} \\(since [^)]+\\); wait for it to end or stop it, then try again\\.$`));
    // merge --to into the running folder: the same refusal.
    expect(userErrorLine(await memplanHere('merge', folder, '--to', folder))).toMatch(new RegExp(`^memplan: ${folder} is being written by memplan pid ${first.pid} `));
    expect(first.exitCode).toBeNull();
    first.kill('SIGINT');
    expect(await ended).toEqual({ code: null, signal: 'SIGINT' });
    expect(await readdir(folder)).not.toContain('run.lock');
    const before = existsSync(join(folder, 'results.jsonl')) ? await lines(join(folder, 'results.jsonl')) : [];
    expect(before.length).toBeLessThan(models.length);

    const resumed = await memplanHere('run', file, '--out', out, '--resume');
    expect(resumed.status, resumed.stderr).toBe(0);
    const after = await lines(join(folder, 'results.jsonl'));
    expect(after).toHaveLength(models.length);
    expect(new Set(after.map((c) => c.model)).size).toBe(models.length);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(await readdir(folder)).not.toContain('run.lock');
    // The folder is said before the first cell; the cells finished before are one line, not one each.
    expect(resumed.stderr.split('\n')[0]).toBe(`slow: writing to ${folder}`);
    if (before.length > 0) expect(resumed.stderr).toContain(`slow: ${before.length} cell${before.length === 1 ? '' : 's'} finished before, kept`);
    expect(resumed.stderr.match(/^slow \d+\/\d+ /gm) ?? []).toHaveLength(models.length - before.length);
    // Nothing left: one line says so.
    const again = await memplanHere('run', file, '--out', out, '--resume');
    expect(again.stderr.trim().split('\n')).toEqual([`slow: writing to ${folder}`, `slow: ${models.length} cells finished before, kept (${models.length}/${models.length})`]);
  }, 120_000);
});

describe('memplan run --shard beyond the cells', () => {
  it.each(['1/99999999', '0/5000000000', '0/31'])(
    'refuses --shard %s at once: the experiment has 30 cells',
    async (shard) => {
      const file = join(dir, 'thirty.json');
      await writeFile(file, JSON.stringify(experiment('thirty', ['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/greedy-in-order'])));
      const out = join(dir, `shard-${shard.replace('/', '-')}`);
      const started = Date.now();
      const run = await memplanHere('run', file, '--out', out, '--shard', shard);
      const [index, count] = shard.split('/');
      expect(userErrorLine(run)).toBe(`memplan: shard ${index}/${count}: ${file} has 30 cells, so it splits into at most 30 shards.`);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(existsSync(out)).toBe(false);
    },
    30_000,
  );
});

describe.skipIf(!fullDiskAvailable)('memplan run on a full disk', () => {
  const name = 'disk';
  const planners = ['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/greedy-in-order'];
  let file = '';
  let earlier = '';
  beforeAll(async () => {
    file = join(dir, 'disk.json');
    await writeFile(file, JSON.stringify(experiment(name, planners)));
    // An earlier run's first three cells, as a run stopped after them leaves its folder.
    const whole = await memplanHere('run', file, '--out', join(dir, 'whole'));
    expect(whole.status, whole.stderr).toBe(0);
    const folder = whole.stdout.trim();
    earlier = join(dir, 'earlier');
    await mkdir(earlier);
    await writeFile(join(earlier, 'run.json'), await readFile(join(folder, 'run.json')));
    await writeFile(join(earlier, 'results.jsonl'), `${(await readFile(join(folder, 'results.jsonl'), 'utf8')).split('\n').slice(0, 3).join('\n')}\n`);
  }, 60_000);

  it('says which file could not be written, keeps every earlier cell and leaves no torn line (--resume)', async () => {
    const { dir: disk, remove } = fullDiskFolder();
    try {
      const run = join(disk, name, 'earlier-run');
      // The disk filled up, then two pages (8 KiB) freed: room for the lock and run.json, and a few cells, not 27.
      const run1 = await memplanOnFullDisk(disk, 64, ['run', file, '--out', disk, '--resume'], {
        prepare: `mkdir -p ${run} && cp ${earlier}/run.json ${earlier}/results.jsonl ${run}/ && (dd if=/dev/zero of=${disk}/filler bs=4096 2>/dev/null; truncate -s -8192 ${disk}/filler)`,
        inspect: `ls -A ${run}; echo ---; cat ${run}/results.jsonl`,
      });
      expect(errorOfRun(run1, name)).toBe(`memplan: ${run}/results.jsonl: no space left on the device (write, ENOSPC).`);
      const [listing, results] = run1.after.split('---\n');
      expect(listing.trim().split('\n').sort()).toEqual(['results.jsonl', 'run.json']);
      expect(results.endsWith('}\n')).toBe(true);
      const cells = results
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(cells.length).toBeGreaterThan(3);
      expect(cells.length).toBeLessThan(30);
      expect(cells.slice(0, 3)).toEqual(await lines(join(earlier, 'results.jsonl')));
    } finally {
      remove();
    }
  }, 60_000);

  it('fails a fresh run the same way: one sentence, whole cells only, no lock left behind', async () => {
    const { dir: disk, remove } = fullDiskFolder();
    try {
      const run1 = await memplanOnFullDisk(disk, 16, ['run', file, '--out', disk], { inspect: `cd ${disk}/${name}/* && ls -A && echo --- && cat results.jsonl` });
      const line = errorOfRun(run1, name);
      expect(line).toMatch(new RegExp(`^memplan: ${disk}/${name}/[^/]+/(results\\.jsonl|run\\.json): no space left on the device \\(write, ENOSPC\\)\\.$`));
      const [listing, results] = run1.after.split('---\n');
      expect(listing).not.toMatch(/run\.lock|\.tmp/);
      if (results !== '') {
        expect(results.endsWith('}\n')).toBe(true);
        for (const l of results.trim().split('\n')) expect(() => JSON.parse(l)).not.toThrow();
      }
    } finally {
      remove();
    }
  }, 60_000);
});
