import { describe, expect, it } from 'vitest';
import { parseStorageBandwidth } from '../../src/io/storage-bandwidth.ts';
import { PacedStorage, waitUntil } from '../../src/io/storage-device.ts';

const speeds = { read: parseStorageBandwidth('1MB/s'), write: parseStorageBandwidth('500KB/s') };
const instant = async (): Promise<string> => 'done';

describe('PacedStorage', () => {
  it('serves transfers started together one after another, each at the stated speed', async () => {
    const device = new PacedStorage(speeds);
    const start = performance.now();
    const ends: number[] = [];
    // Three 20 kB reads at 1 MB/s: 20 ms each, on one device: done at 20, 40 and 60 ms.
    await Promise.all([0, 1, 2].map(() => device.serve('read', 20_000, instant).then(() => ends.push(performance.now() - start))));
    ends.sort((a, b) => a - b);
    expect(ends[0]).toBeGreaterThanOrEqual(19.5);
    expect(ends[1]).toBeGreaterThanOrEqual(39.5);
    expect(ends[2]).toBeGreaterThanOrEqual(59.5);
    // Held together, counted once: about the 60 ms the device took, not 20 + 40 + 60.
    expect(device.heldMs).toBeGreaterThan(55);
    expect(device.heldMs).toBeLessThanOrEqual(performance.now() - start);
  });

  it('holds writes to their own speed, in the same queue as reads', async () => {
    const device = new PacedStorage(speeds);
    const start = performance.now();
    // 10 kB written at 500 kB/s (20 ms), then 10 kB read at 1 MB/s (10 ms): 30 ms in all.
    const [write, read] = await Promise.all([device.serve('write', 10_000, instant), device.serve('read', 10_000, instant)]);
    expect([write, read]).toEqual(['done', 'done']);
    expect(performance.now() - start).toBeGreaterThanOrEqual(29.5);
  });

  it('never speeds a transfer up: one slower than the stated speed is handed back as it ends', async () => {
    const device = new PacedStorage({ read: parseStorageBandwidth('1GB/s'), write: parseStorageBandwidth('1GB/s') });
    const slow = (): Promise<number> => new Promise((resolve) => setTimeout(() => resolve(7), 30));
    const start = performance.now();
    expect(await device.serve('read', 1000, slow)).toBe(7);
    expect(performance.now() - start).toBeGreaterThanOrEqual(29);
    expect(device.heldMs).toBe(0);
  });

  it('passes a failed transfer on', async () => {
    const device = new PacedStorage(speeds);
    await expect(device.serve('read', 10, () => Promise.reject(new Error('EIO')))).rejects.toThrow('EIO');
  });
});

describe('waitUntil', () => {
  it('returns at the moment asked for, not a timer tick late', async () => {
    const due = performance.now() + 5.3;
    await waitUntil(due);
    const now = performance.now();
    expect(now).toBeGreaterThanOrEqual(due);
  });
});
