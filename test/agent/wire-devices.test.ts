import { describe, expect, it } from 'vitest';
import { decodeJob, decodeJobResponse, PROTOCOL_VERSION } from '../../src/agent/wire.ts';
import { jobRequest, tinyGraph } from './helpers.ts';

const decodeText = (value: unknown) => decodeJob(JSON.stringify(value));

/** A job response as an agent sends it, with the report's memory as given. */
function response(memory: Record<string, unknown>, peakRssBytes: unknown = 1): string {
  const report = { backend: 'browser', planner: 'offsets/greedy-by-size', footprint: 1, peakRssBytes, latencyMs: {}, memory, device: { backend: 'browser' }, matchesNaive: true };
  return JSON.stringify({ protocol: PROTOCOL_VERSION, report, device: {} });
}
const MEASURED = { planned: 1, intermediates: 1, io: 1, weights: 1, scratch: 0, baselineRss: 1, peakRss: 2, peakRssDelta: 1, rest: 0 };

describe('the wire format and browsers that joined an agent as devices', () => {
  it('carries the device a job is for, a name of letters, digits, - and _', () => {
    const request = jobRequest(tinyGraph(), 'offsets/greedy-by-size', { backend: 'browser' });
    expect(decodeText({ ...request, run: { ...request.run, device: 'd1' } }).run.device).toBe('d1');
    expect(decodeText(request).run.device).toBeUndefined();
    expect(() => decodeText({ ...request, run: { ...request.run, device: 'd1; rm -rf' } })).toThrow(/^run\.device must name a device \(letters, digits, - and _\), got "d1; rm -rf"\.$/);
    expect(() => decodeText({ ...request, run: { ...request.run, device: 7 } })).toThrow(/^run\.device must name a device/);
  });

  it('takes null for a memory figure only where the report lists it as unavailable (a browser page has no RSS)', () => {
    const unmeasured = { ...MEASURED, baselineRss: null, peakRss: null, peakRssDelta: null, rest: null, unavailable: ['baselineRss', 'peakRss', 'peakRssDelta', 'rest'] };
    expect(decodeJobResponse(response(unmeasured, null)).report.memory.peakRss).toBeNull();
    expect(decodeJobResponse(response(MEASURED)).report.memory.peakRss).toBe(2);
    expect(() => decodeJobResponse(response({ ...MEASURED, peakRss: null }))).toThrow("the job response report's memory has no peakRss.");
    expect(() => decodeJobResponse(response({ ...unmeasured, intermediates: null }))).toThrow("the job response report's memory has no intermediates.");
    expect(() => decodeJobResponse(response(MEASURED, 'x'))).toThrow('the job response report has no peakRssBytes.');
  });
});
