import { describe, expect, it } from 'vitest';
import { browserReport } from '../../../src/backends/browser/browser-report.ts';
import { decodePageResult } from '../../../src/backends/browser/protocol.ts';
import { pageResult } from '../../agent/hub-helpers.ts';

describe("a page's result as execute's report", () => {
  it('summarizes latency as every backend does, and the GPU clock where every inference has it', () => {
    const report = browserReport(pageResult(5), { footprint: 1024, seed: 1 });
    expect(report).toMatchObject({ backend: 'browser', planner: 'offsets/greedy-by-size', footprint: 1024, matchesNaive: true });
    expect(report.latencyMs).toMatchObject({ runs: 5, median: 3, min: 1, max: 5 });
    expect(report.deviceMs).toMatchObject({ runs: 5, median: 0.5 });
    expect(browserReport({ ...pageResult(5), deviceSamples: [0.5] }, { footprint: 1024, seed: 1 }).deviceMs).toBeUndefined();
  });

  it("counts the page's GPU buffers, and says that process memory is unavailable instead of guessing it", () => {
    const { memory, peakRssBytes } = browserReport(pageResult(2), { footprint: 1024, seed: 1 });
    expect(memory).toMatchObject({ planned: 1024, intermediates: 1024, io: 64, weights: 256, scratch: 0, device: { other: 48 } });
    expect(memory.unavailable).toEqual(['baselineRss', 'peakRss', 'peakRssDelta', 'rest']);
    for (const key of memory.unavailable!) expect(memory[key]).toBeNaN();
    expect(peakRssBytes).toBeNaN();
    expect(memory.method).toMatch(/cannot read its process memory/);
    // In JSON (exec --json, results.jsonl, the agent's answer) they are null, not a number.
    const json = JSON.parse(JSON.stringify(memory)) as Record<string, unknown>;
    expect(json.peakRss).toBeNull();
    expect(json.intermediates).toBe(1024);
  });

  it('refuses a page that verified another footprint than the plan sent', () => {
    expect(() => browserReport(pageResult(2, 2048), { footprint: 1024, seed: 1 })).toThrow(/verified a plan of 2048 bytes where 1024 were sent/);
  });

  it('reads a page result only of the right shape', () => {
    expect(decodePageResult(pageResult(3), 3).samples).toEqual([1, 2, 3]);
    expect(() => decodePageResult(null, 3)).toThrow(/body is not an object/);
    expect(() => decodePageResult({ ...pageResult(3), samples: [1, 2, -3] }, 3)).toThrow(/samples are not 3 times/);
    expect(() => decodePageResult({ ...pageResult(3), deviceSamples: [1, 2, 3, 4] }, 3)).toThrow(/device samples/);
    expect(() => decodePageResult({ ...pageResult(3), matchesNaive: 'yes' }, 3)).toThrow(/matchesNaive/);
    expect(() => decodePageResult({ ...pageResult(3), memory: { intermediates: 1 } }, 3)).toThrow(/memory\.io/);
    expect(() => decodePageResult({ ...pageResult(3), device: { backend: 'cpu' } }, 3)).toThrow(/not a browser device/);
  });
});
