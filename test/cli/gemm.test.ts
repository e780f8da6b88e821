import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { fullDiskAvailable, fullDiskFolder, memplanOnFullDisk } from '../fixtures/full-disk.ts';
import { memplan, ROOT, userErrorLine } from './run-memplan.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-gemm-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memplan gemm', () => {
  it('--json gives the run: times, I/O, resident tiles within the budget, measured peak, a correct C', async ({ expect }) => {
    const run = await memplan('gemm', '--n', '256', '--tile', '64', '--budget', '64KiB', '--scheduler', 'dynamic', '--dir', join(dir, 'a'), '--json');
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual([
      'budget',
      'check',
      'computeMs',
      'directIo',
      'files',
      'gflops',
      'io',
      'memory',
      'n',
      'policy',
      'scheduler',
      'seed',
      'stallMs',
      'tile',
      'tiles',
      'wallMs',
    ]);
    expect(report).toMatchObject({ n: 256, tile: 64, budget: 65536, scheduler: 'dynamic', check: { within: true }, files: { dir: join(dir, 'a'), bytes: 3 * 256 * 256 * 4 } });
    expect(report.tiles.residentHighWater).toBeLessThanOrEqual(65536);
    expect(report.memory.method).toMatch(/isolated process/);
  });

  it('says where it left the matrices, and how large they are', async ({ expect }) => {
    const run = await memplan('gemm', '--n', '256', '--tile', '64', '--budget', '64KiB', '--dir', join(dir, 'b'));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`files       A, B and C (768 KiB) left in ${join(dir, 'b')} for the next run of this size and seed; remove it when done`);
  });

  it('says in one line what it cannot do', async ({ expect }) => {
    const [small, shape, size] = await Promise.all([
      memplan('gemm', '--n', '256', '--tile', '64', '--budget', '32KiB', '--dir', join(dir, 'b')),
      memplan('gemm', '--n', '1000', '--tile', '64'),
      memplan('gemm', '--budget', 'plenty'),
    ]);
    expect(userErrorLine(small)).toBe('memplan: a budget of 32 KiB cannot hold one step of a 64x64-tile GEMM (A, B and C tiles: 48 KiB); the smallest budget that works is 48 KiB.');
    expect(userErrorLine(shape)).toBe('memplan: the tile (64) must divide n (1000).');
    expect(userErrorLine(size)).toMatch(/--budget: "plenty" is not a size/);
  });

  it('leaves no C marked finished when a run is killed', async ({ expect }) => {
    const where = join(dir, 'killed');
    const done = await memplan('gemm', '--n', '256', '--tile', '64', '--budget', '1MiB', '--dir', where);
    expect(done.status).toBe(0);
    expect(existsSync(join(where, 'C.done.json'))).toBe(true);
    // 32768 products of tiny tiles, each waiting for its reads: long enough to be killed half way.
    const child = spawn(process.execPath, ['bin/memplan.js', 'gemm', '--n', '1024', '--tile', '32', '--budget', '12KiB', '--dir', where], { cwd: ROOT, stdio: 'ignore' });
    const closed = new Promise((resolve) => child.on('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(child.exitCode, 'the run ended before it could be killed').toBeNull();
    child.kill('SIGKILL');
    await closed;
    expect(existsSync(join(where, 'C.done.json'))).toBe(false);
  });

  it("refuses a --dir it cannot make, at once (Node's own mkdir -p never returns for /proc/xyz)", async ({ expect }) => {
    const started = performance.now();
    const run = await memplan('gemm', '--n', '256', '--tile', '64', '--dir', '/proc/memplan-cannot-be-here');
    expect(userErrorLine(run)).toBe('memplan: /proc/memplan-cannot-be-here: no such file or folder (mkdir, ENOENT).');
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});

describe.skipIf(!fullDiskAvailable)('memplan gemm on a full disk', () => {
  it('refuses a folder whose disk cannot hold the matrices before writing anything', async ({ expect }) => {
    const { dir: disk, remove } = fullDiskFolder();
    try {
      const run = await memplanOnFullDisk(disk, 256, ['gemm', '--n', '512', '--tile', '128', '--budget', '1MiB', '--dir', `${disk}/g`], { inspect: `find ${disk} -type f` });
      expect(userErrorLine(run)).toBe(`memplan: ${disk}/g: the GEMM's matrices need 3 MiB more on this disk and it has 256 KiB free; free some room or give another --dir.`);
      expect(run.after).toBe('');
    } finally {
      remove();
    }
  });

  it('a write that fails part-way leaves no matrix behind and says where', async ({ expect }) => {
    const { dir: disk, remove } = fullDiskFolder();
    try {
      // Room for every byte, but inodes for only the mount, g/, A and B: the marker saying what the folder holds cannot be created.
      const run = await memplanOnFullDisk(disk, 8192, ['gemm', '--n', '256', '--tile', '64', '--dir', `${disk}/g`], { inodes: 5, inspect: `find ${disk} -type f` });
      expect(userErrorLine(run)).toBe(`memplan: ${disk}/g/inputs.json: no space left on the device (open, ENOSPC).`);
      expect(run.after).toBe('');
    } finally {
      remove();
    }
  });
});
