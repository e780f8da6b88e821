import type { DeviceInfo } from '../backend.ts';
import type { ExecuteReport, MemoryReport } from '../execution-report.ts';
import { summarizeLatency } from '../latency.ts';
import type { PageResult } from './protocol.ts';

/** What a page cannot measure: its process's memory (browsers expose none of it to a page). */
const UNAVAILABLE = ['baselineRss', 'peakRss', 'peakRssDelta', 'rest'] as const;

/**
 * execute's report from what a page measured (latency summarized here, as for every
 * backend). Memory: the plan's footprint and the GPU buffers the page created, counted where
 * it created them; the process figures are NaN (null in JSON) and listed as unavailable.
 */
export function browserReport(result: PageResult, job: { readonly footprint: number; readonly seed: number }, extra: Readonly<Record<string, unknown>> = {}): ExecuteReport {
  if (result.footprint !== job.footprint) {
    throw new Error(`the page verified a plan of ${result.footprint} bytes where ${job.footprint} were sent.`);
  }
  const { intermediates, io, weights, scratch, device } = result.memory;
  const memory: MemoryReport = {
    planned: job.footprint,
    intermediates,
    io,
    weights,
    scratch,
    baselineRss: NaN,
    peakRss: NaN,
    peakRssDelta: NaN,
    rest: NaN,
    method:
      'GPU buffers counted as the page created them (intermediates, io, weights; readback and timestamp buffers under device.other) and the host arrays of the graph I/O; a browser page cannot read its process memory, so RSS figures are unavailable',
    unavailable: UNAVAILABLE,
    ...(device ? { device } : {}),
  };
  const latencyMs = summarizeLatency(result.samples, job.seed);
  const { samples, deviceSamples } = result;
  const info: DeviceInfo = { ...result.device, clockResolutionMs: result.clockResolutionMs, ...extra };
  return {
    backend: 'browser',
    planner: result.planner,
    footprint: job.footprint,
    latencyMs,
    samplesMs: [...samples],
    ...(deviceSamples.length === samples.length && samples.length > 0 ? { deviceMs: summarizeLatency(deviceSamples, job.seed), deviceSamplesMs: [...deviceSamples] } : {}),
    matchesNaive: result.matchesNaive,
    memory,
    peakRssBytes: NaN,
    device: info,
  };
}
