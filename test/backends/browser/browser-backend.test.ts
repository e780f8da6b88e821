import { describe, expect, it } from 'vitest';
import { browserBackend } from '../../../src/backends/browser/browser-backend.ts';
import { execute } from '../../../src/measuring/execute.ts';
import { findBackend } from '../../../src/backends/registry.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { testBrowser } from './browser-available.ts';

const browser = testBrowser('test/backends/browser/browser-backend.test.ts');

describe.skipIf(browser === undefined)('the browser backend (headless Chromium of this machine)', () => {
  it('is registered, and refuses to prepare networks in this process (its jobs run whole in the page)', async () => {
    expect(findBackend('browser')).toBe(browserBackend);
    await expect(browserBackend.prepare({} as never)).rejects.toThrow(/runs whole jobs in its page/);
  });

  it('runs BlazeFace inside a shared-objects plan (a buffer per object): outputs bit-identical to the naive plan run in the same page; adapter, latency and GPU buffers reported', async () => {
    const graph = buildZooModel('zoo:blazeface');
    const planner = findPlanner('shared-objects/greedy-by-size-improved');
    const report = await execute(graph, { backend: browserBackend, planner, repetitions: 3, warmup: 1, seed: 1 });
    expect(report).toMatchObject({ backend: 'browser', planner: planner.id, matchesNaive: true });
    const { device, memory } = report;
    expect(device).toMatchObject({ backend: 'browser', browser: { executable: browser } });
    expect(typeof device.adapter).toBe('string');
    expect(String(device.userAgent)).toMatch(/Chrom/);
    expect(['timestamp-query', 'wall-clock']).toContain(device.timing);
    // The plan the page ran is the one planned here, on the records its WebGPU kernels run (activations fused), with the page's adapter alignment.
    const alignment = Number(device.storageOffsetAlignment);
    const expected = planAndVerify(planner, plannedProblem(graph, executionRecords(browserBackend)).problem, { alignment: Math.max(alignment, 1) });
    expect(report.footprint).toBe(expected.footprint);
    // One GPU buffer per object: the objects' bytes, counted where the page created them.
    expect(memory.intermediates).toBe(expected.objects!.sizes.reduce((sum, size) => sum + Math.ceil(size / 4) * 4, 0));
    expect(memory.device?.intermediates).toBe(memory.intermediates);
    expect(memory.weights).toBeGreaterThan(0);
    expect(memory.unavailable).toEqual(['baselineRss', 'peakRss', 'peakRssDelta', 'rest']);
    expect(memory.peakRss).toBeNaN();
    expect(report.latencyMs.runs).toBe(3);
    expect(report.latencyMs.median).toBeGreaterThan(0);
    if (device.timing === 'timestamp-query' && report.deviceMs) expect(report.deviceMs.runs).toBe(3);
  }, 120_000);

  it('says which browser it could not start, in one sentence', async () => {
    const graph = buildZooModel('zoo:blazeface');
    await expect(
      execute(graph, { backend: browserBackend, planner: findPlanner('offsets/greedy-by-size'), repetitions: 1, warmup: 0, seed: 1 }, { on: 'page', browser: '/nonexistent/chromium' }),
    ).rejects.toThrow(/^the browser "\/nonexistent\/chromium" is not an executable file, nor a program on PATH\.$/);
  });
});
