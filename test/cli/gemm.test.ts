import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { fullDiskAvailable, fullDiskFolder, memplanOnFullDisk } from '../fixtures/full-disk.ts';
import { memplanHere, ROOT, userErrorLine } from './run-memplan.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-gemm-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memplan gemm', () => {
  it('--json gives the run: times, I/O, resident tiles within the budget, measured peak, a correct C', async ({ expect }) => {
    const run = await memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '64KiB', '--scheduler', 'dynamic', '--dir', join(dir, 'a'), '--json');
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
      'storage',
      'tile',
      'tiles',
      'wallMs',
    ]);
    expect(report).toMatchObject({ n: 256, tile: 64, budget: 65536, scheduler: 'dynamic', check: { within: true }, files: { dir: join(dir, 'a'), bytes: 3 * 256 * 256 * 4 } });
    expect(report.tiles.residentHighWater).toBeLessThanOrEqual(65536);
    expect(report.memory.method).toMatch(/isolated process/);
    expect(report.storage).toEqual({ read: null, write: null, heldMs: null });
  });

  it('--storage-bandwidth holds the tiles to a stated device: the run takes at least its bytes over the rate, and says the rate', async ({ expect }) => {
    const run = await memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '48KiB', '--dir', join(dir, 'a'), '--storage-bandwidth', '8MB', '--storage-write-bandwidth', '4MB/s', '--json');
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.storage.read).toEqual({ bytesPerSecond: 8e6, label: '8MB/s' });
    expect(report.storage.write).toEqual({ bytesPerSecond: 4e6, label: '4MB/s' });
    const deviceMs = (report.io.bytesRead / 8e6 + report.io.bytesWritten / 4e6) * 1000;
    expect(deviceMs).toBeGreaterThan(300);
    expect(report.wallMs).toBeGreaterThanOrEqual(deviceMs);
    expect(report.check.within).toBe(true);
    const text = await memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '256KiB', '--dir', join(dir, 'a'), '--storage-bandwidth', '400MB');
    expect(text.stdout).toMatch(/^storage {5}held to 400MB\/s for reads, 400MB\/s for writes: \d+\.\d\d s of device time, \d+\.\d\d s held past the real transfers$/m);
  });

  it('says where it left the matrices, and how large they are', async ({ expect }) => {
    const run = await memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '64KiB', '--dir', join(dir, 'b'));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`files       A, B and C (768 KiB) left in ${join(dir, 'b')} for the next run of this size and seed; remove it when done`);
  });

  it('says in one line what it cannot do', async ({ expect }) => {
    const [small, shape, size, speed, writeOnly] = await Promise.all([
      memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '32KiB', '--dir', join(dir, 'b')),
      memplanHere('gemm', '--n', '1000', '--tile', '64'),
      memplanHere('gemm', '--budget', 'plenty'),
      memplanHere('gemm', '--storage-bandwidth', 'fast'),
      memplanHere('gemm', '--storage-write-bandwidth', '40MB'),
    ]);
    expect(userErrorLine(small)).toBe('memplan: a budget of 32 KiB cannot hold one step of a 64x64-tile GEMM (A, B and C tiles: 48 KiB); the smallest budget that works is 48 KiB.');
    expect(userErrorLine(shape)).toBe('memplan: the tile (64) must divide n (1000).');
    expect(userErrorLine(size)).toMatch(/--budget: "plenty" is not a size/);
    expect(userErrorLine(speed)).toBe('memplan: --storage-bandwidth: "fast" is not a read speed; write bytes per second with KB, MB, GB, KiB, MiB or GiB (e.g. 150MB or 150MB/s).');
    expect(userErrorLine(writeOnly)).toBe("memplan: --storage-write-bandwidth needs --storage-bandwidth: state the device's read speed too.");
  });

  it('leaves no C marked finished when a run is killed', async ({ expect }) => {
    const where = join(dir, 'killed');
    const done = await memplanHere('gemm', '--n', '256', '--tile', '64', '--budget', '1MiB', '--dir', where);
    expect(done.status).toBe(0);
    expect(existsSync(join(where, 'C.done.json'))).toBe(true);
    // 32768 products of tiny tiles, each waiting for its reads: long enough to be killed half way.
    const child = spawn(process.execPath, ['bin/memplan.js', 'gemm', '--n', '1024', '--tile', '32', '--budget', '12KiB', '--dir', where], { cwd: ROOT, stdio: 'ignore' });
    const closed = new Promise((resolve) => child.on('close', resolve));
    // Killed once it has begun (its start drops the old marker), however long a busy machine takes to start it.
    const started = performance.now();
    while (existsSync(join(where, 'C.done.json')) && performance.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(child.exitCode, 'the run ended before it could be killed').toBeNull();
    child.kill('SIGKILL');
    await closed;
    expect(existsSync(join(where, 'C.done.json'))).toBe(false);
  });

  it("refuses a --dir it cannot make, at once (Node's own mkdir -p never returns for /proc/xyz)", async ({ expect }) => {
    const started = performance.now();
    const run = await memplanHere('gemm', '--n', '256', '--tile', '64', '--dir', '/proc/memplan-cannot-be-here');
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
