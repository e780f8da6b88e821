import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { epochMs } from '../../src/core/clock.ts';

describe('epochMs', () => {
  it('reads the Unix epoch clock, the same in a worker thread as here', async () => {
    expect(Math.abs(epochMs() - Date.now())).toBeLessThan(50);
    // A worker's performance.now() starts from zero; its epochMs() must not.
    const worker = new Worker('const { parentPort } = require("node:worker_threads"); parentPort.postMessage(performance.timeOrigin + performance.now());', { eval: true });
    const before = epochMs();
    const there = await new Promise<number>((resolve) => worker.once('message', resolve));
    const after = epochMs();
    await worker.terminate();
    expect(there).toBeGreaterThanOrEqual(before - 1);
    expect(there).toBeLessThanOrEqual(after + 1);
  });
});
