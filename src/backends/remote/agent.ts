import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { totalmem } from 'node:os';
import { BackendError } from '../backend-error.ts';
import { unservedBackend } from './served-backends.ts';
import { browserReport } from '../browser/browser-report.ts';
import { DeviceError, DeviceHub, type HubOptions } from '../browser/device-hub.ts';
import { pageBundle } from '../browser/page-bundle.ts';
import { findBackend } from '../registry.ts';
import { checkJob, type CheckedJob } from './check-job.ts';
import { agentDevice } from './device-info.ts';
import { JobProcesses } from './job-process.ts';
import { decodeJob, PROTOCOL_VERSION, type AgentCounters, type AgentDevice, type InfoResponse, type Job, type JobResponse } from './wire.ts';

export interface AgentOptions {
  /** Address to listen on; default 127.0.0.1 (this machine only). */
  readonly host?: string;
  /** Default 0: any free port (see RunningAgent.port). */
  readonly port?: number;
  /** Every request must carry `Authorization: Bearer <token>`; at least 16 characters. */
  readonly token: string;
  /** Backend kinds the agent runs jobs on; default ['cpu']. */
  readonly backends?: readonly string[];
  /** Largest job body (bytes); larger ones get 413 and are not read. Default 256 MiB. */
  readonly maxJobBytes?: number;
  /** A job still running after this long is killed and answered with 504. Default 600. */
  readonly maxRunSeconds?: number;
  /** Jobs that may wait while one runs; more get 503. Default 4. */
  readonly maxQueuedJobs?: number;
  /** Most bytes the tensors of one job may take together; default: the machine's memory. */
  readonly maxTensorBytes?: number;
  /** One line per request worth noting (jobs, refusals); default: silent. */
  readonly log?: (line: string) => void;
  /**
   * Also serve the device page (`/device`): browsers that open it with the pairing code join
   * as devices and run jobs that name them (`run.device`). Options of the hub, or true.
   */
  readonly devices?: boolean | Omit<HubOptions, 'log'>;
}

export interface RunningAgent {
  /** `http://host:port`, as a client reaches it. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly device: AgentDevice;
  /** With `devices`: the browsers that joined, and the code they join with. */
  readonly hub?: DeviceHub;
  counters(): AgentCounters;
  /** Stops listening, ends every job process and connection. */
  close(): Promise<void>;
}

export const MIN_TOKEN_LENGTH = 16;
const DEFAULT_MAX_JOB_BYTES = 256 * 2 ** 20;
const DEFAULT_MAX_RUN_SECONDS = 600;

/** A request the agent refuses: its status and one sentence. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

/**
 * `memplan agent`'s server: runs jobs sent by the harness (remote-executor.ts) on this
 * machine's backends and answers with executeGraph's report.
 *
 *   GET  /v1/info  the machine, its backends, the agent's limits and job counters
 *   POST /v1/jobs  one job (wire.ts) -> 200 report | 400 bad job | 401 | 413 | 503 | 504 | 500
 *
 * With `devices`, also the device page (browser/device-hub.ts): browsers join with the
 * pairing code and run the jobs that name them (`run.device`).
 *
 * Every other request needs the token (compared in constant time). A job is checked completely
 * before anything runs (structure, shapes, the plan through the verifier). Jobs run one at
 * a time, each in its own child process, killed at the time cap or when its client goes
 * away. The agent writes no files.
 */
export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  if (typeof options.token !== 'string' || options.token.length < MIN_TOKEN_LENGTH) {
    throw new BackendError(`the agent needs a token of at least ${MIN_TOKEN_LENGTH} characters.`);
  }
  const maxJobBytes = options.maxJobBytes ?? DEFAULT_MAX_JOB_BYTES;
  const maxRunSeconds = options.maxRunSeconds ?? DEFAULT_MAX_RUN_SECONDS;
  const maxQueuedJobs = options.maxQueuedJobs ?? 4;
  const maxTensorBytes = options.maxTensorBytes ?? totalmem();
  for (const [name, value] of [['maxJobBytes', maxJobBytes], ['maxRunSeconds', maxRunSeconds], ['maxTensorBytes', maxTensorBytes]] as const) {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new BackendError(`the agent's ${name} must be a number > 0, got ${value}.`);
  }
  if (!Number.isSafeInteger(maxQueuedJobs) || maxQueuedJobs < 0) throw new BackendError(`the agent's maxQueuedJobs must be a whole number >= 0, got ${maxQueuedJobs}.`);
  const kinds = options.backends ?? ['cpu'];
  if (kinds.length === 0) throw new BackendError('the agent needs at least one backend.');
  const backends = [...new Set(kinds)].map((kind) => {
    const backend = findBackend(kind);
    const unserved = unservedBackend(kind);
    if (unserved !== undefined) throw new BackendError(unserved);
    return backend;
  });
  const device = await agentDevice(backends);
  const served = device.backends.map((b) => ({ kind: b.kind, requiredAlignment: b.requiredAlignment }));
  const log = options.log ?? (() => {});
  const expected = digest(options.token);
  const hub = options.devices ? new DeviceHub({ ...(options.devices === true ? {} : options.devices), log: (line) => log(`devices: ${line}`) }) : undefined;

  const counters = { started: 0, completed: 0, timedOut: 0, abandoned: 0, failed: 0 };
  const processes = new JobProcesses();
  const inFlight = new Set<AbortController>();
  let waiting = 0;
  let running = false;
  let tail: Promise<void> = Promise.resolve();
  let closing = false;

  /** Runs `task` after every job before it (one job at a time). */
  const exclusive = async <T>(task: () => Promise<T>): Promise<T> => {
    const previous = tail;
    let release!: () => void;
    tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await task();
    } finally {
      release();
    }
  };

  const authorized = (header: string | undefined): boolean => {
    const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
    // Digests have one length whatever the token given: the comparison time says nothing about the token.
    return match !== null && timingSafeEqual(digest(match[1]), expected);
  };

  const info = (): InfoResponse => ({
    protocol: PROTOCOL_VERSION,
    agent: 'memplan-agent',
    device,
    limits: { maxJobBytes, maxRunSeconds },
    jobs: { ...counters },
    ...(hub ? { devices: hub.list() } : {}),
  });

  async function runJob(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxJobBytes) throw new Refusal(413, tooLarge(Number(declared), maxJobBytes));
    if (expectsContinue && !res.destroyed) res.writeContinue();
    const body = await readBody(req, maxJobBytes);
    if (body === 'too-large') throw new Refusal(413, tooLarge(undefined, maxJobBytes));
    if (body === 'aborted') return;
    const text = body.toString('utf8');
    let checked: CheckedJob;
    try {
      const decoded = decodeJob(text);
      if (decoded.run.device !== undefined) return await runDeviceJob(decoded, text, req, res);
      checked = checkJob(decoded, served, maxTensorBytes);
    } catch (error) {
      if (error instanceof Refusal) throw error;
      // Whatever stops a job from being read or checked is about that job.
      throw new Refusal(400, sentence((error as Error).message));
    }
    if (running && waiting >= maxQueuedJobs) throw new Refusal(503, `the agent is busy with a job and ${waiting} waiting; try again later.`, { 'Retry-After': '10' });
    const controller = new AbortController();
    // The client went away before its answer: drop the job (queued) or kill its process (running).
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    if (res.destroyed || req.socket.destroyed) controller.abort();
    inFlight.add(controller);
    waiting++;
    const { job } = checked;
    let number = 0;
    let started = 0;
    try {
      const outcome = await exclusive(async () => {
        waiting--;
        if (controller.signal.aborted) return { kind: 'aborted' as const };
        number = ++counters.started;
        started = performance.now();
        log(`job ${number}: ${printable(job.graph.name)}, ${printable(job.plan.planner)}, ${job.run.backend}, ${job.run.warmup} warmup + ${job.run.repetitions} runs`);
        running = true;
        try {
          return await processes.run(job, maxRunSeconds * 1000, controller.signal);
        } finally {
          running = false;
        }
      });
      const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      switch (outcome.kind) {
        case 'done': {
          counters.completed++;
          const answer: JobResponse = { protocol: PROTOCOL_VERSION, report: outcome.report as JobResponse['report'], device };
          reply(res, 200, answer);
          log(`job ${number}: done in ${took}`);
          return;
        }
        case 'timeout':
          counters.timedOut++;
          log(`job ${number}: stopped at the ${maxRunSeconds} s limit`);
          throw new Refusal(504, `the job ran past the agent's limit of ${maxRunSeconds} s and was stopped.`);
        case 'aborted':
          counters.abandoned++;
          log(`job ${number === 0 ? '(queued)' : number}: abandoned, ${closing ? 'the agent is closing' : 'the client went away'}`);
          throw new Refusal(503, 'the agent is shutting down.');
        case 'failed':
          counters.failed++;
          log(`job ${number}: failed: ${outcome.message}`);
          throw new Refusal(500, `the job failed on the agent: ${sentence(outcome.message)}`);
      }
    } finally {
      inFlight.delete(controller);
    }
  }

  /**
   * A job for a browser that joined as a device: checked here as any job (its plan verified
   * against the device's alignment), then run by the page, which checks and verifies it
   * again. A device runs one job at a time; the agent's own queue is not involved, as the
   * job does not run on this machine.
   */
  async function runDeviceJob(job: Job, text: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = job.run.device!;
    if (hub === undefined) throw new Refusal(400, 'this agent serves no devices; start it with --devices.');
    const target = hub.list().find((d) => d.id === id);
    if (target === undefined) throw new Refusal(404, `no device ${id} is connected to this agent.`);
    if (target.requiredAlignment === null) throw new Refusal(400, `device ${id} (${target.name}) has no WebGPU: ${target.error ?? 'no adapter'}`);
    let checked: CheckedJob;
    try {
      checked = checkJob(job, [{ kind: 'browser', requiredAlignment: target.requiredAlignment }], maxTensorBytes);
    } catch (error) {
      throw new Refusal(400, sentence((error as Error).message));
    }
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    if (res.destroyed || req.socket.destroyed) controller.abort();
    inFlight.add(controller);
    const number = ++counters.started;
    const started = performance.now();
    log(`job ${number}: ${printable(job.graph.name)}, ${printable(job.plan.planner)}, on device ${id} (${printable(target.name)}), ${job.run.warmup} warmup + ${job.run.repetitions} runs`);
    try {
      const result = await hub.run(id, text, { repetitions: job.run.repetitions, maxRunMs: maxRunSeconds * 1000, signal: controller.signal });
      const report = browserReport(result, { footprint: checked.job.plan.plan.footprint, seed: job.run.seed }, { deviceId: id, deviceName: target.name });
      counters.completed++;
      reply(res, 200, { protocol: PROTOCOL_VERSION, report, device } satisfies JobResponse);
      log(`job ${number}: done on device ${id} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      if (!(error instanceof DeviceError)) {
        counters.failed++;
        throw new Refusal(500, `the job failed on device ${id}: ${sentence((error as Error).message)}`);
      }
      log(`job ${number}: ${error.message}`);
      switch (error.reason) {
        case 'timeout':
          counters.timedOut++;
          throw new Refusal(504, error.message);
        case 'aborted':
          counters.abandoned++;
          throw new Refusal(503, closing ? 'the agent is shutting down.' : error.message);
        case 'busy':
        case 'closing':
          throw new Refusal(503, error.message, { 'Retry-After': '10' });
        case 'gone':
          counters.failed++;
          throw new Refusal(502, error.message);
        case 'unknown-device':
          throw new Refusal(404, error.message);
        case 'no-webgpu':
          throw new Refusal(400, error.message);
        case 'failed':
          counters.failed++;
          throw new Refusal(500, error.message);
      }
    } finally {
      inFlight.delete(controller);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    // A client that resets its connection must not take the agent down.
    req.on('error', () => {});
    res.on('error', () => {});
    try {
      if (closing) throw new Refusal(503, 'the agent is shutting down.');
      // The device page and its API: a browser has the pairing code, never the agent's token.
      if (hub !== undefined && hub.handles((req.url ?? '/').split('?')[0])) {
        await hub.handle(req, res);
        return;
      }
      if (!authorized(req.headers.authorization)) {
        log(`refused a request from ${req.socket.remoteAddress ?? 'an unknown address'}: ${req.headers.authorization ? 'wrong token' : 'no token'}`);
        throw new Refusal(401, req.headers.authorization ? 'the token is wrong.' : 'the request has no token; send Authorization: Bearer <token>.', {
          'WWW-Authenticate': 'Bearer',
        });
      }
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/v1/info') {
        if (req.method !== 'GET') throw new Refusal(405, 'use GET for /v1/info.', { Allow: 'GET' });
        reply(res, 200, info());
        drain(req, res);
        return;
      }
      if (path === '/v1/jobs') {
        if (req.method !== 'POST') throw new Refusal(405, 'use POST for /v1/jobs.', { Allow: 'POST' });
        await runJob(req, res, expectsContinue);
        return;
      }
      throw new Refusal(404, `the agent has no ${path}; it serves GET /v1/info and POST /v1/jobs${hub ? ', and the device page at /device' : ''}.`);
    } catch (error) {
      if (!(error instanceof Refusal)) {
        log(`internal error: ${(error as Error).stack ?? String(error)}`);
        error = new Refusal(500, `the agent failed: ${sentence((error as Error).message ?? String(error))}`);
      }
      const refusal = error as Refusal;
      reply(res, refusal.status, { protocol: PROTOCOL_VERSION, error: refusal.message }, refusal.headers);
      drain(req, res);
    }
  }

  const server = createServer((req, res) => void handle(req, res, false));
  // Expect: 100-continue: a job refused on its headers (token, size) is never sent at all.
  server.on('checkContinue', (req, res) => void handle(req, res, true));
  server.maxConnections = 64;

  try {
    // The device page is bundled before the agent says it serves: a bundle that cannot be made fails now.
    if (hub !== undefined) await pageBundle();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    hub?.close();
    throw error;
  }
  // The first job's process is loaded and ready before the agent says it serves: a project
  // that cannot run jobs here fails now, with its error, not at the first job.
  try {
    await processes.warm();
  } catch (error) {
    hub?.close();
    await processes.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    device,
    ...(hub ? { hub } : {}),
    counters: () => ({ ...counters }),
    async close() {
      if (closing) return;
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const controller of inFlight) controller.abort();
      hub?.close();
      await processes.close();
      server.closeAllConnections();
      await stopped;
    },
  };
}

/** Names from a job, safe for a log line (no control characters, bounded). */
function printable(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function sentence(message: string): string {
  const line = message.replace(/\s*\n\s*/g, ' ').trim();
  return /[.!?]$/.test(line) ? line : `${line}.`;
}

function tooLarge(declared: number | undefined, max: number): string {
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  return declared === undefined
    ? `the job is larger than the agent's limit of ${mib(max)} MiB (${max} bytes).`
    : `the job is ${mib(declared)} MiB (${declared} bytes), more than the agent's limit of ${mib(max)} MiB (${max} bytes).`;
}

function reply(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  try {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...headers });
    res.end(text);
  } catch {
    // The connection closed under us: nobody to answer.
  }
}

/**
 * After an answer given before the body was read (or without reading it), read no more:
 * close the connection once the answer is out, and cut it if the client keeps sending.
 */
function drain(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  const cut = (): void => {
    req.socket.end();
    setTimeout(() => req.socket.destroy(), 1000).unref();
  };
  if (res.writableFinished) cut();
  else res.once('finish', cut);
}

/** The body, up to `max` bytes; stops reading past it. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const settle = (value: Buffer | 'too-large' | 'aborted'): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        settle('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle(Buffer.concat(chunks, size)));
    req.once('close', () => settle('aborted'));
    req.once('error', () => settle('aborted'));
  });
}
