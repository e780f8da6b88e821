import { describe, expect, it } from 'vitest';
import { readRss, resetPeakRss } from '../../src/measuring/process-memory.ts';

const MiB = 2 ** 20;

describe('process memory', () => {
  it('reads the resident size and a peak that a reset brings back to it', () => {
    const before = readRss();
    expect(before.rss).toBeGreaterThan(MiB);
    expect(before.peakRss).toBeGreaterThanOrEqual(before.rss);
    resetPeakRss();
    const reset = readRss();
    if (process.platform === 'linux') expect(reset.method).toMatch(/VmHWM.*clear_refs/);
    // 64 MiB touched: the peak moves up by about that much.
    const block = new Uint8Array(64 * MiB).fill(1);
    const after = readRss();
    expect(block[block.length - 1]).toBe(1);
    expect(after.peakRss - reset.peakRss).toBeGreaterThan(56 * MiB);
  });
});
