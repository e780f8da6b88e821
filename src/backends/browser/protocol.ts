import type { BackendMemory, DeviceInfo } from '../backend.ts';

/**
 * What a device page (page/device-page.ts) and the hub that serves it (device-hub.ts) say
 * to each other, over HTTP on the hub's address. The page joins with the pairing code and
 * gets a session token; the hub tells it of jobs on an event stream (one JSON object per
 * line); the page fetches a job (the agent's wire format, remote/wire.ts), runs it and
 * posts its result; while connected it says it is alive every few seconds.
 *
 *   GET  /device                      the page
 *   GET  /device/page.js              its code (the bundle of page/device-page.ts)
 *   POST /v1/device/join              DeviceJoin -> DeviceWelcome          (pairing code)
 *   GET  /v1/device/events            HubEvent per line, until either side goes (session)
 *   POST /v1/device/alive             204                                  (session)
 *   GET  /v1/device/jobs/<n>          the job, wire format                 (session)
 *   POST /v1/device/jobs/<n>/result   PageOutcome -> 204                   (session)
 */
export const PAGE_PATH = '/device';
export const BUNDLE_PATH = '/device/page.js';
export const DEVICE_API = '/v1/device/';

/** What the page found when it opened WebGPU. */
export type PageGpu = { readonly ok: true; readonly info: DeviceInfo; readonly alignment: number } | { readonly ok: false; readonly error: string };

export interface DeviceJoin {
  readonly code: string;
  /** What the page calls itself (from its user agent, or what the user typed). */
  readonly name: string;
  readonly gpu: PageGpu;
}

export interface DeviceWelcome {
  readonly id: string;
  readonly session: string;
  /** The page says it is alive this often. */
  readonly aliveSeconds: number;
}

export type HubEvent =
  | { readonly type: 'welcome'; readonly id: string }
  | { readonly type: 'job'; readonly job: number }
  | { readonly type: 'cancel'; readonly job: number }
  | { readonly type: 'ping' };

/**
 * One measured job, as the page reports it: raw samples (the harness summarizes them as
 * for every other backend) and what it counted; never the outputs, which it compared
 * with the naive plan's itself.
 */
export interface PageResult {
  readonly planner: string;
  /** The plan's footprint as the page's verifier recomputed it. */
  readonly footprint: number;
  /** Wall milliseconds of each timed inference, by the page's clock (performance.now). */
  readonly samples: readonly number[];
  /** GPU milliseconds of each (timestamp queries), where the adapter has them. */
  readonly deviceSamples: readonly number[];
  /** The naive plan, run in the same page on the same inputs, gave bit-identical outputs; null when not checked. */
  readonly matchesNaive: boolean | null;
  /** GPU buffers the page created for the plan, and the host arrays of the graph I/O. */
  readonly memory: BackendMemory;
  readonly device: DeviceInfo;
  /** Compute dispatches per inference. */
  readonly dispatches: number;
  /** performance.now's resolution as the page measured it (ms): coarse where the page is not cross-origin isolated. */
  readonly clockResolutionMs: number;
}

export type PageOutcome = { readonly result: PageResult } | { readonly error: string };

/** A PageResult from a device, checked field by field (a device is trusted no further than its pairing). */
export function decodePageResult(value: unknown, repetitions: number): PageResult {
  const fail = (what: string): never => {
    throw new Error(`the device sent a result whose ${what}`);
  };
  if (value === null || typeof value !== 'object') fail('body is not an object.');
  const r = value as Record<string, unknown>;
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const samples = (v: unknown, what: string, exact: boolean): number[] => {
    if (!Array.isArray(v) || !v.every(finite) || v.length > repetitions || (exact && v.length !== repetitions)) fail(`${what} are not ${repetitions} times in ms.`);
    return v as number[];
  };
  if (typeof r.planner !== 'string') fail('planner is missing.');
  if (!finite(r.footprint)) fail('footprint is not a byte count.');
  if (r.matchesNaive !== null && typeof r.matchesNaive !== 'boolean') fail('matchesNaive is neither true, false nor null.');
  if (!Number.isSafeInteger(r.dispatches)) fail('dispatches is not a count.');
  if (!finite(r.clockResolutionMs)) fail('clockResolutionMs is not a time.');
  const memory = r.memory as Record<string, unknown> | null;
  if (memory === null || typeof memory !== 'object') fail('memory is missing.');
  for (const key of ['intermediates', 'io', 'weights', 'scratch']) if (!finite(memory![key])) fail(`memory.${key} is not a byte count.`);
  const device = memory!.device as Record<string, unknown> | undefined;
  if (device !== undefined && (typeof device !== 'object' || !['intermediates', 'io', 'weights', 'other'].every((k) => finite(device[k])))) fail('memory.device is not bytes by what they hold.');
  if (r.device === null || typeof r.device !== 'object' || (r.device as DeviceInfo).backend !== 'browser') fail('device is not a browser device.');
  return {
    planner: r.planner as string,
    footprint: r.footprint as number,
    samples: samples(r.samples, 'samples', true),
    deviceSamples: samples(r.deviceSamples, 'device samples', false),
    matchesNaive: r.matchesNaive as boolean | null,
    memory: memory as unknown as BackendMemory,
    device: r.device as DeviceInfo,
    dispatches: r.dispatches as number,
    clockResolutionMs: r.clockResolutionMs as number,
  };
}
