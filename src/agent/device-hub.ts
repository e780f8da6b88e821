import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeviceInfo } from '../backends/backend.ts';
import { BackendError } from '../backends/backend-error.ts';
import { DEFAULT_HTTP_LIMITS } from './http/limits.ts';
import { printable, printableValues } from '../io/printable.ts';
import { readBody, type BodyPace } from './http/read-body.ts';
import { Refusal, sentence } from './http/refusal.ts';
import { drain, reply } from './http/reply.ts';
import { bearerToken, digest, sameSecret } from './http/secrets.ts';
import type { WireDevice } from './wire.ts';
import { JoinLimiter } from './join-limiter.ts';
import { pageBundle } from '../backends/browser/page-bundle.ts';
import { PAGE_HTML } from '../backends/browser/page-html.ts';
import { BUNDLE_PATH, decodePageResult, DEVICE_API, PAGE_PATH, type DeviceJoin, type DeviceWelcome, type HubEvent, type PageGpu, type PageResult } from '../backends/browser/protocol.ts';

/** A device as `memplan list devices` and the agent's info show it. */
export type DeviceSummary = WireDevice;

/** Why a job did not come back from a device: one sentence, and what kind of failure it was. */
export class DeviceError extends BackendError {
  constructor(
    readonly reason: 'unknown-device' | 'no-webgpu' | 'busy' | 'gone' | 'timeout' | 'aborted' | 'failed' | 'closing',
    message: string,
  ) {
    super(message);
    this.name = 'DeviceError';
  }
}

export interface HubOptions {
  /** The code a browser must give to join; default: drawn (8 characters, easy to type). */
  readonly pairingCode?: string;
  /** A device that has not said it is alive for this long is dropped (and its job fails). Default 30. */
  readonly silenceSeconds?: number;
  /** How often a page says it is alive. Default 5. */
  readonly aliveSeconds?: number;
  /** Most devices at once. Default 32. */
  readonly maxDevices?: number;
  /** How fast a join or a result must arrive (http/read-body.ts); default DEFAULT_HTTP_LIMITS'. */
  readonly pace?: BodyPace;
  /** One line per event worth noting (joins, leaves, refusals). */
  readonly log?: (line: string) => void;
}

interface RunningJob {
  readonly number: number;
  readonly text: string;
  readonly repetitions: number;
  fetched: boolean;
  settle(outcome: { result: PageResult } | { error: DeviceError }): void;
}

interface Device {
  readonly id: string;
  readonly name: string;
  readonly gpu: PageGpu;
  readonly address: string;
  readonly joinedAt: Date;
  readonly sessionDigest: string;
  lastSeen: number;
  stream?: ServerResponse;
  job?: RunningJob;
  jobs: number;
}

/** Characters of drawn pairing codes: no 0/O, 1/I/L, so that a code read off a screen is typed right. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const MAX_JOIN_BYTES = 256 * 1024;
const MAX_RESULT_BYTES = 4 * 2 ** 20;
/** Wrong pairing codes an address may send before it is refused for BLOCK_MS. */
const MAX_FAILED_JOINS = 10;
const BLOCK_MS = 10 * 60_000;

/**
 * Browsers that joined as devices (the device page, page/device-page.ts) and the jobs they
 * run. It answers the page's requests (`handle`), on the agent's server (`memplan agent
 * --devices`) or a loopback server of its own (`--backend browser`, browser-session.ts).
 *
 * Joining takes the pairing code (compared in constant time; an address that sends wrong
 * codes is refused for a while); every later request takes the session token the join
 * gave. A device runs one job at a time. A device whose event stream closes, or that stops
 * saying it is alive, is dropped at once, and a job it was running fails with a sentence
 * that says so: nobody waits for a device that has gone.
 */
export class DeviceHub {
  readonly pairingCode: string;
  private readonly devices = new Map<string, Device>();
  private readonly sessions = new Map<string, Device>();
  private readonly joins = new JoinLimiter(MAX_FAILED_JOINS, BLOCK_MS);
  /** Digest of the pairing code (http/secrets.ts): codes are compared in constant time. */
  private readonly codeDigest: Buffer;
  private readonly pace: BodyPace;
  private readonly joinWaiters = new Set<(outcome: DeviceSummary | DeviceError) => void>();
  private readonly silenceMs: number;
  private readonly aliveSeconds: number;
  private readonly maxDevices: number;
  private readonly log: (line: string) => void;
  private readonly watch: NodeJS.Timeout;
  private nextDevice = 1;
  private nextJob = 1;
  private closed = false;

  constructor(options: HubOptions = {}) {
    this.pairingCode = options.pairingCode ?? drawCode(8);
    if (this.pairingCode.length < 6) throw new BackendError('a pairing code needs at least 6 characters.');
    this.codeDigest = digest(this.pairingCode.toUpperCase());
    this.aliveSeconds = options.aliveSeconds ?? 5;
    this.silenceMs = (options.silenceSeconds ?? 30) * 1000;
    this.maxDevices = options.maxDevices ?? 32;
    this.pace = options.pace ?? { minBytesPerSecond: DEFAULT_HTTP_LIMITS.minBodyBytesPerSecond, graceMs: DEFAULT_HTTP_LIMITS.bodyGraceMs };
    this.log = options.log ?? (() => {});
    this.watch = setInterval(() => this.dropSilent(), Math.min(this.silenceMs / 3, 5000));
    this.watch.unref();
  }

  /** The connected devices. */
  list(): DeviceSummary[] {
    return [...this.devices.values()].map(summary);
  }

  /** The next device to join (a local session waits for its own browser), or an error after `timeoutMs`. */
  nextJoin(timeoutMs: number): Promise<DeviceSummary> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new DeviceError('gone', `no browser joined within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
      // Nobody waits on a hub that closes: the process may exit.
      timer.unref();
      const done = (outcome: DeviceSummary | DeviceError): void => {
        clearTimeout(timer);
        this.joinWaiters.delete(done);
        if (outcome instanceof DeviceError) reject(outcome);
        else resolve(outcome);
      };
      this.joinWaiters.add(done);
    });
  }

  /**
   * Runs one job (the agent's wire format) on a device: resolves with what the page
   * measured, or rejects with a DeviceError (no such device, busy, gone, past `maxRunMs`,
   * called off by `signal`, or failed in the page).
   */
  run(id: string, text: string, options: { readonly repetitions: number; readonly maxRunMs: number; readonly signal?: AbortSignal }): Promise<PageResult> {
    const device = this.devices.get(id);
    if (device === undefined) {
      const known = [...this.devices.keys()];
      return Promise.reject(new DeviceError('unknown-device', `no device ${id} is connected${known.length > 0 ? `; connected: ${known.join(', ')}` : ' (none is)'}.`));
    }
    if (!device.gpu.ok) return Promise.reject(new DeviceError('no-webgpu', `device ${id} (${device.name}) has no WebGPU: ${device.gpu.error}`));
    if (device.job !== undefined) return Promise.reject(new DeviceError('busy', `device ${id} (${device.name}) is busy with a job; try again later.`));
    const number = this.nextJob++;
    return new Promise<PageResult>((resolve, reject) => {
      const finish = (outcome: { result: PageResult } | { error: DeviceError }): void => {
        if (device.job?.number !== number) return;
        device.job = undefined;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if ('result' in outcome) {
          device.jobs++;
          resolve(outcome.result);
        } else {
          if (outcome.error.reason === 'timeout' || outcome.error.reason === 'aborted') this.send(device, { type: 'cancel', job: number });
          reject(outcome.error);
        }
      };
      const onAbort = (): void => finish({ error: new DeviceError('aborted', `the job on device ${id} was called off.`) });
      const timer = setTimeout(
        () => finish({ error: new DeviceError('timeout', `the job ran past the limit of ${Number((options.maxRunMs / 1000).toFixed(1))} s on device ${id} (${device.name}) and was called off.`) }),
        options.maxRunMs,
      );
      device.job = { number, text, repetitions: options.repetitions, fetched: false, settle: finish };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.log(`job ${number} to device ${id} (${device.name})`);
      this.send(device, { type: 'job', job: number });
    });
  }

  /** Ends every device's connection; their jobs fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watch);
    for (const waiter of [...this.joinWaiters]) waiter(new DeviceError('closing', 'memplan is shutting down the device hub.'));
    for (const device of [...this.devices.values()]) this.drop(device, new DeviceError('closing', 'memplan is shutting down the device hub.'), 'the hub is closing');
  }

  /** Whether a request is the hub's (the page, its code, the device API). */
  handles(path: string): boolean {
    return path === PAGE_PATH || path === BUNDLE_PATH || path.startsWith(DEVICE_API);
  }

  /** Answers a request that `handles` took. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => {});
    res.on('error', () => {});
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (this.closed) throw new Refusal(503, 'memplan is shutting down.');
      if (path === PAGE_PATH) return this.servePage(req, res, 'text/html; charset=utf-8', PAGE_HTML);
      if (path === BUNDLE_PATH) return this.servePage(req, res, 'text/javascript; charset=utf-8', await pageBundle());
      const route = path.slice(DEVICE_API.length);
      if (route === 'join') return await this.join(req, res);
      const device = this.authorized(req);
      device.lastSeen = Date.now();
      if (route === 'events') return this.openEvents(req, res, device);
      if (route === 'alive') {
        method(req, 'POST');
        reply(res, 204);
        req.resume();
        return;
      }
      const job = /^jobs\/(\d+)(\/result)?$/.exec(route);
      if (job !== null) return await this.jobRequest(req, res, device, Number(job[1]), job[2] !== undefined);
      throw new Refusal(404, `there is no ${path} here.`);
    } catch (error) {
      const refusal = error instanceof Refusal ? error : new Refusal(500, `the device hub failed: ${sentence((error as Error).message)}`);
      if (!(error instanceof Refusal)) this.log(`internal error: ${(error as Error).stack ?? String(error)}`);
      reply(res, refusal.status, { error: refusal.message }, refusal.headers);
      drain(req, res);
    }
  }

  private servePage(req: IncomingMessage, res: ServerResponse, type: string, body: string): void {
    method(req, 'GET');
    const headers = {
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // Cross-origin isolation: the page's clock then ticks in 5 µs instead of 100 µs steps.
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Content-Security-Policy': "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    };
    res.writeHead(200, headers);
    res.end(body);
  }

  private async join(req: IncomingMessage, res: ServerResponse): Promise<void> {
    method(req, 'POST');
    const address = req.socket.remoteAddress ?? 'unknown';
    // The try is taken before the code is read: codes sent at once count as codes sent in turn.
    const attempt = this.joins.begin(address);
    if (attempt === undefined) throw new Refusal(429, 'too many wrong pairing codes from this address; wait a few minutes.', { 'Retry-After': String(BLOCK_MS / 1000) });
    let body: Partial<DeviceJoin>;
    try {
      body = (await this.readJson(req, MAX_JOIN_BYTES)) as Partial<DeviceJoin>;
    } catch (error) {
      attempt.abandoned();
      throw error;
    }
    if (typeof body.code !== 'string' || !sameSecret(body.code.trim().toUpperCase(), this.codeDigest)) {
      attempt.failed();
      this.log(`refused a device from ${address}: wrong pairing code`);
      throw new Refusal(401, 'the pairing code is wrong.');
    }
    attempt.succeeded();
    if (this.devices.size >= this.maxDevices) throw new Refusal(503, `memplan already has ${this.maxDevices} devices; close one first.`);
    const gpu = checkGpu(body.gpu);
    const name = typeof body.name === 'string' && body.name.trim() !== '' ? printable(body.name.trim()) : 'browser';
    const session = randomBytes(24).toString('hex');
    const device: Device = { id: `d${this.nextDevice++}`, name, gpu, address, joinedAt: new Date(), sessionDigest: digest(session).toString('hex'), lastSeen: Date.now(), jobs: 0 };
    this.devices.set(device.id, device);
    this.sessions.set(device.sessionDigest, device);
    this.log(`device ${device.id} joined from ${address}: ${name}, ${printable(summary(device).adapter)}`);
    const welcome: DeviceWelcome = { id: device.id, session, aliveSeconds: this.aliveSeconds };
    reply(res, 200, welcome);
    for (const waiter of [...this.joinWaiters]) waiter(summary(device));
  }

  private authorized(req: IncomingMessage): Device {
    const session = bearerToken(req.headers.authorization);
    const device = session === undefined ? undefined : this.sessions.get(digest(session).toString('hex'));
    if (device === undefined) throw new Refusal(401, 'this device is not joined (or was dropped); reload the page to join again.');
    return device;
  }

  private openEvents(req: IncomingMessage, res: ServerResponse, device: Device): void {
    method(req, 'GET');
    // A page that opens a second stream replaces the first (without leaving).
    const previous = device.stream;
    device.stream = res;
    previous?.end();
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    res.socket?.setNoDelay(true);
    this.send(device, { type: 'welcome', id: device.id });
    // A job announced before the stream opened is announced again.
    if (device.job !== undefined && !device.job.fetched) this.send(device, { type: 'job', job: device.job.number });
    const ping = setInterval(() => this.send(device, { type: 'ping' }), 15_000);
    res.once('close', () => {
      clearInterval(ping);
      if (device.stream === res) this.drop(device, undefined, 'its page closed the connection');
    });
  }

  private async jobRequest(req: IncomingMessage, res: ServerResponse, device: Device, number: number, result: boolean): Promise<void> {
    const job = device.job;
    if (job === undefined || job.number !== number) throw new Refusal(404, `job ${number} is not this device's (it may have been called off).`);
    if (!result) {
      method(req, 'GET');
      job.fetched = true;
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(job.text), 'Cache-Control': 'no-store' });
      res.end(job.text);
      return;
    }
    method(req, 'POST');
    const outcome = (await this.readJson(req, MAX_RESULT_BYTES)) as { result?: unknown; error?: unknown };
    reply(res, 204);
    if (typeof outcome.error === 'string') {
      job.settle({ error: new DeviceError('failed', `device ${device.id} (${device.name}) could not run the job: ${sentence(printable(outcome.error, 400))}`) });
      return;
    }
    try {
      const result = decodePageResult(outcome.result, job.repetitions);
      // What the page says of itself reaches reports and terminals: printable text only.
      job.settle({ result: { ...result, planner: printable(result.planner, 200), device: printableValues(result.device) as DeviceInfo } });
    } catch (error) {
      job.settle({ error: new DeviceError('failed', `device ${device.id} (${device.name}): ${(error as Error).message}`) });
    }
  }

  /** A JSON body of at most `max` bytes, at the hub's pace; a Refusal (400, 408, 413) otherwise. */
  private async readJson(req: IncomingMessage, max: number): Promise<unknown> {
    const body = await readBody(req, { maxBytes: max, pace: this.pace });
    if (body === undefined) throw new Refusal(400, 'the request broke off.');
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw new Refusal(400, 'the body is not JSON.');
    }
  }

  private send(device: Device, event: HubEvent): void {
    const stream = device.stream;
    if (stream === undefined || stream.writableEnded || stream.destroyed) return;
    stream.write(`${JSON.stringify(event)}\n`);
  }

  private dropSilent(): void {
    const now = Date.now();
    for (const device of [...this.devices.values()]) {
      if (now - device.lastSeen > this.silenceMs) this.drop(device, undefined, `it said nothing for ${Math.round(this.silenceMs / 1000)} s`);
    }
  }

  /** Forgets a device; a job it runs fails with `error`, or with a sentence saying that it went and why. */
  private drop(device: Device, error: DeviceError | undefined, why: string): void {
    if (this.devices.get(device.id) !== device) return;
    this.devices.delete(device.id);
    this.sessions.delete(device.sessionDigest);
    this.log(`device ${device.id} (${device.name}) left: ${why}`);
    device.job?.settle({ error: error ?? new DeviceError('gone', `device ${device.id} (${device.name}) disconnected in the middle of the job (${why}).`) });
    const stream = device.stream;
    device.stream = undefined;
    stream?.end();
  }
}

function summary(device: Device): DeviceSummary {
  const gpu = device.gpu;
  const base = { id: device.id, name: device.name, address: device.address, joinedAt: device.joinedAt.toISOString(), busy: device.job !== undefined, jobs: device.jobs };
  if (!gpu.ok) return { ...base, adapter: 'no WebGPU', software: null, requiredAlignment: null, userAgent: '', error: gpu.error };
  return {
    ...base,
    adapter: String(gpu.info.adapter ?? 'unnamed adapter'),
    software: gpu.info.software === true,
    requiredAlignment: gpu.alignment,
    userAgent: String(gpu.info.userAgent ?? ''),
    info: gpu.info,
  };
}

/** What a joining page says of its WebGPU, checked (it is shown to users and sizes their plans). */
function checkGpu(value: unknown): PageGpu {
  const gpu = value as Partial<{ ok: boolean; info: DeviceInfo; alignment: number; error: string }> | undefined;
  if (gpu?.ok === false && typeof gpu.error === 'string') return { ok: false, error: sentence(printable(gpu.error, 400)) };
  const alignment = gpu?.alignment;
  if (
    gpu?.ok !== true ||
    gpu.info === null ||
    typeof gpu.info !== 'object' ||
    Array.isArray(gpu.info) ||
    gpu.info.backend !== 'browser' ||
    typeof alignment !== 'number' ||
    !Number.isSafeInteger(alignment) ||
    alignment < 4 ||
    (alignment & (alignment - 1)) !== 0
  ) {
    throw new Refusal(400, "the join does not describe the page's WebGPU device (gpu.ok, gpu.info, gpu.alignment, a power of two).");
  }
  // Its adapter's name and the rest are shown in lists, logs and reports: printable text only.
  return { ok: true, info: printableValues(gpu.info) as DeviceInfo, alignment };
}

function method(req: IncomingMessage, expected: 'GET' | 'POST'): void {
  if (req.method !== expected) throw new Refusal(405, `use ${expected} here.`);
}

function drawCode(length: number): string {
  let code = '';
  for (let k = 0; k < length; k++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}
