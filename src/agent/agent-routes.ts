import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeviceHub } from './device-hub.ts';
import type { BodyBudget } from './http/body-budget.ts';
import type { HttpLimits } from './http/limits.ts';
import { readBody } from './http/read-body.ts';
import { Refusal, sentence } from './http/refusal.ts';
import { drain, reply } from './http/reply.ts';
import { returnMemory } from './http/return-memory.ts';
import { bearerToken, sameSecret } from './http/secrets.ts';
import { runDeviceJob, type DeviceJobOptions } from './device-jobs.ts';
import { jobDevice } from './job-device.ts';
import type { LocalJobs } from './local-jobs.ts';
import { PROTOCOL_VERSION, type AgentDevice, type InfoResponse, type JobResponse } from './wire.ts';

export interface RouteOptions {
  /** Digest of the agent's token (http/secrets.ts). */
  readonly tokenDigest: Buffer;
  readonly maxJobBytes: number;
  readonly http: HttpLimits;
  readonly device: AgentDevice;
  readonly info: () => InfoResponse;
  readonly local: LocalJobs;
  readonly hub?: DeviceHub;
  readonly deviceJobs?: DeviceJobOptions;
  readonly bodies: BodyBudget;
  readonly log: (line: string) => void;
  readonly closing: () => boolean;
  /** Jobs in progress: the agent calls them off when it closes. */
  readonly inFlight: Set<AbortController>;
}

/** A body at least this large is worth a garbage collection once the agent is done with it (http/return-memory.ts). */
const LARGE_BODY_BYTES = 2 ** 20;

/**
 * The agent's requests, once their headers are in:
 *
 *   GET  /v1/info  the machine, its backends, the agent's limits and job counters
 *   POST /v1/jobs  one job (wire.ts) -> 200 report | 400 bad job | 401 | 404 | 408 | 413 | 502 | 503 | 504 | 500
 *
 * and, with a hub, the device page and its API (no token: the pairing code and sessions).
 * Every other request needs the token (compared in constant time); every refusal is JSON
 * with one sentence.
 */
export async function handleRequest(options: RouteOptions, req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
  // A client that resets its connection must not take the agent down.
  req.on('error', () => {});
  res.on('error', () => {});
  try {
    if (options.closing()) throw new Refusal(503, 'the agent is shutting down.');
    const path = (req.url ?? '/').split('?')[0];
    // The device page and its API: a browser has the pairing code, never the agent's token.
    if (options.hub !== undefined && options.hub.handles(path)) {
      await options.hub.handle(req, res);
      return;
    }
    const token = bearerToken(req.headers.authorization);
    if (token === undefined || !sameSecret(token, options.tokenDigest)) {
      options.log(`refused a request from ${req.socket.remoteAddress ?? 'an unknown address'}: ${req.headers.authorization ? 'wrong token' : 'no token'}`);
      throw new Refusal(401, req.headers.authorization ? 'the token is wrong.' : 'the request has no token; send Authorization: Bearer <token>.', { 'WWW-Authenticate': 'Bearer' });
    }
    if (path === '/v1/info') {
      if (req.method !== 'GET') throw new Refusal(405, 'use GET for /v1/info.', { Allow: 'GET' });
      reply(res, 200, options.info());
      drain(req, res);
      return;
    }
    if (path === '/v1/jobs') {
      if (req.method !== 'POST') throw new Refusal(405, 'use POST for /v1/jobs.', { Allow: 'POST' });
      await postJob(options, req, res, expectsContinue);
      return;
    }
    throw new Refusal(404, `the agent has no ${path}; it serves GET /v1/info and POST /v1/jobs${options.hub ? ', and the device page at /device' : ''}.`);
  } catch (error) {
    if (!(error instanceof Refusal)) options.log(`internal error: ${(error as Error).stack ?? String(error)}`);
    const refusal = error instanceof Refusal ? error : new Refusal(500, `the agent failed: ${sentence((error as Error).message ?? String(error))}`);
    reply(res, refusal.status, { protocol: PROTOCOL_VERSION, error: refusal.message }, refusal.headers);
    drain(req, res);
  }
}

/**
 * One job: its body waits for room in the agent's body memory (one body per client at a
 * time, a bounded total), is read at the agent's pace, and goes to a device (a body that
 * names one) or to this machine's job queue, which hands it on to a job process unparsed.
 */
async function postJob(options: RouteOptions, req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
  const { maxJobBytes } = options;
  const tooLarge = (declared: number | undefined): string => {
    const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
    return declared === undefined
      ? `the job is larger than the agent's limit of ${mib(maxJobBytes)} MiB (${maxJobBytes} bytes).`
      : `the job is ${mib(declared)} MiB (${declared} bytes), more than the agent's limit of ${mib(maxJobBytes)} MiB (${maxJobBytes} bytes).`;
  };
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  // Refused on its headers: with Expect: 100-continue the body is never sent at all.
  if (declared !== undefined && declared > maxJobBytes) throw new Refusal(413, tooLarge(declared));
  const controller = new AbortController();
  // The client went away before its answer: the job is dropped (waiting) or its process killed (running).
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  if (res.destroyed || req.socket.destroyed) controller.abort();
  options.inFlight.add(controller);
  let size = 0;
  try {
    const release = await options.bodies.acquire(req.socket.remoteAddress ?? 'unknown', declared ?? maxJobBytes, controller.signal);
    if (release === undefined) return;
    try {
      if (expectsContinue && !res.destroyed) res.writeContinue();
      // Held in an object, not a variable: handed to the job process, the body is dropped here.
      const held: { body?: Buffer } = {};
      held.body = await readBody(req, { maxBytes: maxJobBytes, pace: { minBytesPerSecond: options.http.minBodyBytesPerSecond, graceMs: options.http.bodyGraceMs }, tooLarge });
      if (held.body === undefined) return;
      size = held.body.length;
      const device = options.deviceJobs !== undefined ? jobDevice(held.body) : undefined;
      const report =
        device !== undefined && options.deviceJobs !== undefined
          ? await runDeviceJob(options.deviceJobs, held.body, controller.signal)
          : await options.local.run(
              {
                take: () => {
                  const body = held.body!;
                  held.body = undefined;
                  release();
                  return body;
                },
              },
              controller.signal,
            );
      reply(res, 200, { protocol: PROTOCOL_VERSION, report: report as JobResponse['report'], device: options.device } satisfies JobResponse);
    } finally {
      release();
    }
  } finally {
    options.inFlight.delete(controller);
    if (size >= LARGE_BODY_BYTES) returnMemory();
  }
}
