import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { pinToLastCore } from '../../../src/measuring/isolation/pin-core.ts';

const canPin =
  process.platform === 'linux' &&
  availableParallelism() > 1 &&
  (() => {
    try {
      execFileSync('taskset', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
if (!canPin) console.log('skipping the pinning test: it needs Linux, two cores or more and taskset.');

describe('pinning a measured process', () => {
  it.skipIf(!canPin)('pins a process and every thread of it to the last core, and says which', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const pinning = pinToLastCore(child.pid);
      const last = availableParallelism() - 1;
      expect(pinning).toEqual({ core: last, method: `taskset --all-tasks --cpu-list ${last}` });
      const threads = execFileSync('ls', [`/proc/${child.pid}/task`], { encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(threads.length).toBeGreaterThan(1);
      for (const thread of threads) expect(execFileSync('taskset', ['--cpu-list', '--pid', thread], { encoding: 'utf8' })).toMatch(new RegExp(`list: ${last}\\n$`));
    } finally {
      child.kill('SIGKILL');
    }
  });
});
