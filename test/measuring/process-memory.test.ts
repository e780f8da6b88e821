import { describe, expect, it } from 'vitest';
import { runNode } from '../cli/run-memplan.ts';

const MiB = 2 ** 20;

/**
 * The readings, taken in a fresh process as a measured process takes them: a test worker
 * has run other files before this one (vitest without isolation), and a block it allocates
 * may land in pages those files left resident, so that nothing new is touched.
 */
const READINGS = `
import { readRss, resetPeakRss } from './src/measuring/process-memory.ts';
const before = readRss();
resetPeakRss();
const reset = readRss();
// 64 MiB touched: the peak moves up by about that much.
const block = new Uint8Array(64 * 2 ** 20).fill(1);
const after = readRss();
console.log(JSON.stringify({ before, reset, after, last: block[block.length - 1] }));
`;

interface Reading {
  readonly rss: number;
  readonly peakRss: number;
  readonly method: string;
}

describe('process memory', () => {
  it('reads the resident size and a peak that a reset brings back to it', async () => {
    const run = await runNode('--import', 'tsx', '--input-type=module', '-e', READINGS);
    expect(run.status, run.stderr).toBe(0);
    const { before, reset, after, last } = JSON.parse(run.stdout) as { before: Reading; reset: Reading; after: Reading; last: number };
    expect(before.rss).toBeGreaterThan(MiB);
    expect(before.peakRss).toBeGreaterThanOrEqual(before.rss);
    if (process.platform === 'linux') expect(reset.method).toMatch(/VmHWM.*clear_refs/);
    expect(last).toBe(1);
    expect(after.peakRss - reset.peakRss).toBeGreaterThan(56 * MiB);
  });
});
