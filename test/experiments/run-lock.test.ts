import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';
import { liveHolder, LOCK_FILE, lockRun } from '../../src/experiments/run-lock.ts';
import { ROOT } from '../cli/run-memplan.ts';

let base = '';
let made = 0;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'memplan-lock-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const folder = async (): Promise<string> => {
  const dir = join(base, `run-${made++}`);
  await mkdir(dir);
  return dir;
};

/** The pid of a process that has ended: nothing runs under it (pids are not reused this soon). */
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

/** A second process (run-lock-child.ts) that takes the lock of `dir`; resolves with it once it says won or lost. */
function child(dir: string, mode: 'hold' | 'exit' | 'throw'): { process: ChildProcess; said: Promise<string>; ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/experiments/run-lock-child.ts', dir, mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const said = new Promise<string>((resolve) => {
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    proc.on('close', () => resolve(out.trim()));
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  return { process: proc, said, ended };
}

describe('run folder lock', () => {
  it('is a file made with wx holding pid and host, removed on release', async () => {
    const dir = await folder();
    const lock = await lockRun(dir);
    expect(lock.path).toBe(join(dir, LOCK_FILE));
    const holder = JSON.parse(await readFile(lock.path, 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect((await liveHolder(dir))?.pid).toBe(process.pid);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
    await lock.release();
    expect(await liveHolder(dir)).toBeUndefined();
  });

  it('refuses a second writer in one sentence naming the folder and the holder pid', async () => {
    const dir = await folder();
    const lock = await lockRun(dir);
    const second = lockRun(dir);
    await expect(second).rejects.toThrow(ExperimentError);
    await expect(lockRun(dir)).rejects.toThrow(`${dir} is being written by memplan pid ${process.pid} (since `);
    await lock.release();
    await (await lockRun(dir)).release();
  });

  it('takes over a lock whose holder died on this host', async () => {
    const dir = await folder();
    const pid = deadPid();
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid, host: hostname(), started: 'then', token: 'old' }));
    expect(await liveHolder(dir)).toBeUndefined();
    const lock = await lockRun(dir);
    expect(JSON.parse(await readFile(lock.path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('never takes over a lock of another host: it cannot see whether that holder lives', async () => {
    const dir = await folder();
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: 'elsewhere.example', started: 'then', token: 'x' }));
    await expect(lockRun(dir)).rejects.toThrow(
      new RegExp(
        `^${dir} is being written by memplan pid \\d+ on elsewhere\\.example \\(since then\\); this machine cannot tell whether it still runs; remove ${join(dir, LOCK_FILE)} if it does not, then try again\\.$`,
      ),
    );
  });

  it('refuses a lock that names no process rather than guess', async () => {
    const dir = await folder();
    await writeFile(join(dir, LOCK_FILE), '');
    await expect(lockRun(dir)).rejects.toThrow(`${dir} is locked by another memplan, but its ${LOCK_FILE} names no process; remove ${join(dir, LOCK_FILE)} if no run is writing there.`);
  });

  it('names the lock file when it cannot be made', async () => {
    const dir = join(base, 'no-such-folder');
    await expect(lockRun(dir)).rejects.toMatchObject({ code: 'ENOENT', path: join(dir, LOCK_FILE) });
  });
});

describe('run folder lock between processes', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'holds against this process while a second one runs, and is gone once %s stops it',
    async (signal) => {
      const dir = await folder();
      const other = child(dir, 'hold');
      expect(await other.said).toBe('won');
      await expect(lockRun(dir)).rejects.toThrow(`${dir} is being written by memplan pid ${other.process.pid} (since `);
      other.process.kill(signal);
      // The signal still ends the process as a signal does (the handler re-raises it).
      expect(await other.ended).toEqual({ code: null, signal });
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      await (await lockRun(dir)).release();
    },
    30_000,
  );

  it.each(['exit', 'throw'] as const)(
    'is gone after a process that holds it ends by %s',
    async (mode) => {
      const dir = await folder();
      const other = child(dir, mode);
      expect(await other.said).toBe('won');
      expect((await other.ended).code).toBe(mode === 'exit' ? 3 : 1);
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    },
    30_000,
  );

  it('is taken over from a process killed with SIGKILL, which could remove nothing', async () => {
    const dir = await folder();
    const other = child(dir, 'hold');
    expect(await other.said).toBe('won');
    other.process.kill('SIGKILL');
    await other.ended;
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(other.process.pid);
    const lock = await lockRun(dir);
    expect(JSON.parse(await readFile(lock.path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  }, 30_000);

  it("goes to exactly one of several processes racing for a dead holder's lock", async () => {
    const dir = await folder();
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: hostname(), started: 'then', token: 'old' }));
    // Winners hold on until every racer has spoken, so a second winner could not hide behind the first one's end.
    const racers = [0, 1, 2, 3].map(() => child(dir, 'hold'));
    const said = await Promise.all(racers.map((r) => r.said));
    for (const r of racers) r.process.kill('SIGTERM');
    await Promise.all(racers.map((r) => r.ended));
    expect(said.filter((s) => s === 'won')).toHaveLength(1);
    for (const s of said.filter((s) => s !== 'won')) expect(s).toMatch(new RegExp(`^lost ${dir} is being written by memplan pid \\d+ \\(since `));
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }, 60_000);
});
