import { describe, expect, it } from 'vitest';
import { browserBackend } from '../../src/backends/browser/browser-backend.ts';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { execute } from '../../src/measuring/execute.ts';
import { localPlacement } from '../../src/measuring/placement.ts';
import { BACKENDS } from '../../src/backends/registry.ts';
import { RemoteError } from '../../src/measuring/remote-executor.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { tinyGraph } from '../agent/helpers.ts';

const job = { planner: findPlanner('offsets/greedy-by-size'), repetitions: 1, warmup: 0, seed: 1 };

describe('where a job runs', () => {
  it('runs on this machine where the backend says: the browser in a page, every other backend in a process', () => {
    expect(localPlacement(browserBackend, 'chromium')).toEqual({ on: 'page', browser: 'chromium' });
    expect(localPlacement(browserBackend)).toEqual({ on: 'page' });
    for (const backend of BACKENDS.filter((b) => b.kind !== 'browser')) expect(localPlacement(backend, 'chromium')).toEqual({ on: 'process' });
  });

  it('refuses a placement the backend does not run in, before anything starts', async () => {
    await expect(execute(tinyGraph(), { ...job, backend: browserBackend }, { on: 'process' })).rejects.toThrow(
      'the browser backend runs whole jobs in a browser page; it prepares no network in a process of this machine.',
    );
    await expect(execute(tinyGraph(), { ...job, backend: cpuBackend }, { on: 'page' })).rejects.toThrow('the cpu backend runs in a process, not in a browser page.');
  });

  it('times no peer runtime beside a job on an agent', async () => {
    const running = execute(tinyGraph(), { ...job, backend: cpuBackend, peer: true }, { on: 'agent', url: 'http://127.0.0.1:9', token: 'unused-token-0123456789' });
    await expect(running).rejects.toThrow(RemoteError);
    await expect(running).rejects.toThrow(/a job on an agent does not take it/);
  });
});
