import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUSY_OTHER_CORES, watchLoad } from '../../src/experiments/machine-load.ts';

describe('the machine-load record of a timed run', () => {
  it.skipIf(process.platform !== 'linux')('counts a busy process that is not this run as load: the machine was busy', async () => {
    const watch = watchLoad();
    // Another program spinning a core for a second and a half, still running when the watch stops.
    const other = spawn(process.execPath, ['-e', 'const end = Date.now() + 3000; while (Date.now() < end) {}'], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const record = watch.stop();
    other.kill('SIGKILL');
    expect(record.otherCores).toBeGreaterThan(BUSY_OTHER_CORES);
    expect(record.busy).toBe(true);
    expect(record.seconds).toBeGreaterThan(1.4);
    expect(record.rule).toMatch(/other processes used more than 0\.25 of a core/);
    expect(Number.isFinite(record.loadAverageBefore) && Number.isFinite(record.loadAverageAfter)).toBe(true);
  });
});
