import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Graph } from '../graph/ir.ts';
import { BackendError } from '../backends/backend-error.ts';
import type { ExecuteOptions } from './execute-options.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';
import type { AgentPlacement } from './placement.ts';
import { buildJob } from './job-builder.ts';
import { decodeInfo, decodeJobResponse, errorSentence, WireError, type InfoResponse } from '../agent/wire.ts';

/** A remote run that could not happen: unreachable agent, refused token or job, time cap. One sentence. */
export class RemoteError extends BackendError {
  constructor(
    message: string,
    /** The agent's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

/** What `device` holds for a remote run: the agent's backend's device() and the agent's machine. */
export interface RemoteDevice {
  readonly url: string;
  readonly hostname: string;
  readonly os: InfoResponse['device']['os'];
  readonly cpu: InfoResponse['device']['cpu'];
  readonly memoryBytes: number;
  readonly node: string;
  readonly gpu?: InfoResponse['device']['gpu'];
}

const INFO_TIMEOUT_SECONDS = 30;
const MAX_ANSWER_BYTES = 16 * 2 ** 20;

/** The agent's machine, backends and limits (GET /v1/info). */
export async function agentInfo(url: string, token: string, timeoutSeconds = INFO_TIMEOUT_SECONDS): Promise<InfoResponse> {
  const base = agentUrl(url);
  const answer = await call(base, '/v1/info', { method: 'GET', token, timeoutSeconds });
  if (answer.status !== 200) throw refusal(base, answer.status, answer.text, 'the info request');
  return wireOrRemote(base, () => decodeInfo(answer.text));
}

/**
 * A job placed on a machine running `memplan agent` (or on a browser that joined it as a
 * device), on the agent's backend of the job's kind: plans and verifies here (with the
 * alignment the agent's backend or the device needs), sends the planned graph with its
 * weights' values and the plan (job-builder.ts), and returns the agent's report, with the
 * agent's machine under `device.remote`. The naive-plan check runs on the agent; no peer
 * runtime (the agent times only its own backend).
 */
export async function executeOnAgent(source: Graph, options: ExecuteOptions, agent: AgentPlacement): Promise<ExecuteReport> {
  if (options.peer || options.webPeer) throw new RemoteError('the peer runtime (onnxruntime) is timed on this machine; a job on an agent does not take it.');
  const base = agentUrl(agent.url);
  const info = await agentInfo(agent.url, agent.token);
  const { kind, requiredAlignment } = servedBy(info, base, options.backend.kind, agent.device);
  const { graph, body: text } = buildJob(
    source,
    options,
    {
      backend: kind,
      repetitions: options.repetitions,
      warmup: options.warmup,
      seed: options.seed,
      verifyByExecution: options.verifyByExecution ?? true,
      ...(options.workers === undefined ? {} : { workers: options.workers }),
      ...(agent.device === undefined ? {} : { device: agent.device }),
    },
    requiredAlignment,
    // A device is a browser (WebGPU: no scratch, activations as the graph has them); an agent's backend runs as this version's does.
    agent.device === undefined ? options.backend : {},
  );
  const body = Buffer.from(text, 'utf8');
  if (body.length > info.limits.maxJobBytes) {
    const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
    throw new RemoteError(`the job for ${graph.name} is ${mib(body.length)} MiB, more than the ${mib(info.limits.maxJobBytes)} MiB agent ${base.origin} takes (raise its --max-job-mb).`, 413);
  }

  const timeoutSeconds = agent.timeoutSeconds ?? info.limits.maxRunSeconds + 60;
  const answer = await call(base, '/v1/jobs', { method: 'POST', token: agent.token, body, timeoutSeconds });
  if (answer.status !== 200) throw refusal(base, answer.status, answer.text, `the job for ${graph.name}`);
  const response = wireOrRemote(base, () => decodeJobResponse(answer.text));
  const { backends: _backends, endianness: _endianness, ...machine } = response.device;
  const remote: RemoteDevice = { url: base.origin, ...machine };
  return { ...response.report, device: { ...response.report.device, remote } };
}

/** The backend (or device) on the agent that runs the job, and the offset alignment its plans need. */
function servedBy(info: InfoResponse, base: URL, kind: string, deviceId: string | undefined): { kind: string; requiredAlignment: number } {
  if (deviceId !== undefined) {
    if (kind !== 'browser') throw new RemoteError(`device ${deviceId} is a browser; it runs the browser backend, not ${kind}.`);
    if (info.devices === undefined) throw new RemoteError(`agent ${base.origin} serves no devices; start it with --devices.`);
    const device = info.devices.find((d) => d.id === deviceId);
    if (device === undefined) {
      const known = info.devices.map((d) => `${d.id} (${d.name})`);
      throw new RemoteError(`agent ${base.origin} has no device ${deviceId}${known.length > 0 ? `; connected: ${known.join(', ')}` : '; no device is connected (open its device page on one)'}.`);
    }
    if (device.requiredAlignment === null) throw new RemoteError(`device ${device.id} (${device.name}) has no WebGPU: ${device.error ?? 'no adapter'}`);
    return { kind: 'browser', requiredAlignment: device.requiredAlignment };
  }
  const served = info.device.backends.find((b) => b.kind === kind);
  if (served === undefined) {
    throw new RemoteError(`agent ${base.origin} serves ${info.device.backends.map((b) => b.kind).join(', ')}, not ${kind}.`);
  }
  return { kind, requiredAlignment: served.requiredAlignment };
}

function agentUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RemoteError(`${JSON.stringify(url)} is not a URL; give the agent as http://host:port.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new RemoteError(`${url}: the agent is reached over http:// or https://.`);
  return parsed;
}

function wireOrRemote<T>(base: URL, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof WireError) throw new RemoteError(`agent ${base.origin}: ${error.message}`);
    throw error;
  }
}

function refusal(base: URL, status: number, text: string, what: string): RemoteError {
  const said = errorSentence(text) ?? `${text.slice(0, 120).replace(/\s+/g, ' ').trim() || 'no explanation'}.`;
  const agent = `agent ${base.origin}`;
  switch (status) {
    case 400:
      return new RemoteError(`${agent} refused ${what}: ${said}`, status);
    case 401:
      return new RemoteError(`${agent} refused the token (401): ${said}`, status);
    case 413:
      return new RemoteError(`${agent} refused ${what} as too large (413): ${said}`, status);
    case 504:
      return new RemoteError(`${agent} stopped ${what} at its time limit (504): ${said}`, status);
    case 503:
      return new RemoteError(`${agent} cannot take ${what} now (503): ${said}`, status);
    case 500:
      return new RemoteError(`${agent} could not run ${what} (500): ${said}`, status);
    case 502:
      return new RemoteError(`${agent} lost its device during ${what} (502): ${said}`, status);
    default:
      return new RemoteError(`${agent} answered ${what} with HTTP ${status}: ${said}`, status);
  }
}

interface Call {
  readonly method: 'GET' | 'POST';
  readonly token: string;
  readonly body?: Buffer;
  readonly timeoutSeconds: number;
}

/** One HTTP exchange; network failures become RemoteErrors naming the agent. */
function call(base: URL, path: string, init: Call): Promise<{ status: number; text: string }> {
  const target = new URL(path, base);
  const agent = `agent ${base.origin}`;
  return new Promise((resolve, reject) => {
    let answered = false;
    let settled = false;
    const settle = (error: Error | undefined, value?: { status: number; text: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(sendAnyway);
      if (error) reject(error);
      else resolve(value as { status: number; text: string });
    };
    const send = httpRequestFor(target)(target, {
      method: init.method,
      agent: false,
      headers: {
        Authorization: `Bearer ${init.token}`,
        Accept: 'application/json',
        ...(init.body === undefined
          ? {}
          : // Expect: 100-continue: a job refused on its headers (token, size) is never uploaded.
            { 'Content-Type': 'application/json', 'Content-Length': init.body.length, Expect: '100-continue' }),
      },
    });
    const timer = setTimeout(() => {
      settle(new RemoteError(`${agent} gave no answer within ${init.timeoutSeconds} s.`));
      send.destroy();
    }, init.timeoutSeconds * 1000);
    let sent = false;
    const upload = (): void => {
      if (sent || answered) return;
      sent = true;
      send.end(init.body);
    };
    // A front that ignores Expect: 100-continue gets the body after a second anyway.
    const sendAnyway = init.body === undefined ? undefined : setTimeout(upload, 1000);
    if (init.body === undefined) send.end();
    else send.on('continue', upload);

    send.on('response', (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          settle(new RemoteError(`${agent} sent an answer larger than ${MAX_ANSWER_BYTES} bytes; is that address a memplan agent?`));
          send.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => settle(undefined, { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', () => settle(new RemoteError(`${agent} closed the connection in the middle of its answer.`)));
      // The agent stops reading a refused body: a write error after its answer changes nothing.
      send.on('error', () => {});
    });
    send.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      settle(new RemoteError(networkSentence(agent, error)));
    });
  });
}

function httpRequestFor(target: URL): typeof httpRequest {
  return target.protocol === 'https:' ? (httpsRequest as unknown as typeof httpRequest) : httpRequest;
}

function networkSentence(agent: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `cannot reach ${agent}: connection refused; is memplan agent running there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot reach ${agent}: the host name does not resolve.`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${agent}: no route to the host.`;
    case 'ETIMEDOUT':
      return `cannot reach ${agent}: the connection timed out.`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${agent} closed the connection before it answered; did it stop, or is the job larger than it takes?`;
    default:
      return `cannot talk to ${agent}: ${error.message.replace(/\.$/, '')}.`;
  }
}
