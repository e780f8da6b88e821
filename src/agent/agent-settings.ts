import { totalmem } from 'node:os';
import { BackendError } from '../backends/backend-error.ts';
import type { HubOptions } from './device-hub.ts';
import { httpLimits, type HttpLimits } from './http/limits.ts';

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
  /**
   * Most bytes of request bodies the agent holds at once, over all clients (a client holds
   * one at a time; more wait, unread). Default twice maxJobBytes.
   */
  readonly maxBodyMemoryBytes?: number;
  /** A job still running after this long is killed and answered with 504. Default 600. */
  readonly maxRunSeconds?: number;
  /** Jobs that may wait while one runs; more get 503. Default 4. */
  readonly maxQueuedJobs?: number;
  /** Most bytes the tensors of one job may take together; default: the machine's memory. */
  readonly maxTensorBytes?: number;
  /** Header and body timeouts and connection caps (http/limits.ts); each defaults to DEFAULT_HTTP_LIMITS'. */
  readonly http?: Partial<HttpLimits>;
  /** One line per request worth noting (jobs, refusals); default: silent. */
  readonly log?: (line: string) => void;
  /**
   * Also serve the device page (`/device`): browsers that open it with the pairing code join
   * as devices and run jobs that name them (`run.device`). Options of the hub, or true.
   */
  readonly devices?: boolean | Omit<HubOptions, 'log' | 'pace'>;
}

/** AgentOptions checked, with every default filled in. */
export interface AgentSettings {
  readonly token: string;
  readonly kinds: readonly string[];
  readonly maxJobBytes: number;
  readonly maxBodyMemoryBytes: number;
  readonly maxRunSeconds: number;
  readonly maxQueuedJobs: number;
  readonly maxTensorBytes: number;
  readonly http: HttpLimits;
}

export const MIN_TOKEN_LENGTH = 16;
export const DEFAULT_MAX_JOB_BYTES = 256 * 2 ** 20;
const DEFAULT_MAX_RUN_SECONDS = 600;
const DEFAULT_MAX_QUEUED_JOBS = 4;

/** The options checked (a BackendError names the first that is wrong), defaults filled in. */
export function agentSettings(options: AgentOptions): AgentSettings {
  if (typeof options.token !== 'string' || options.token.length < MIN_TOKEN_LENGTH) {
    throw new BackendError(`the agent needs a token of at least ${MIN_TOKEN_LENGTH} characters.`);
  }
  const maxJobBytes = options.maxJobBytes ?? DEFAULT_MAX_JOB_BYTES;
  const maxBodyMemoryBytes = options.maxBodyMemoryBytes ?? 2 * maxJobBytes;
  const maxRunSeconds = options.maxRunSeconds ?? DEFAULT_MAX_RUN_SECONDS;
  const maxQueuedJobs = options.maxQueuedJobs ?? DEFAULT_MAX_QUEUED_JOBS;
  const maxTensorBytes = options.maxTensorBytes ?? totalmem();
  for (const [name, value] of [
    ['maxJobBytes', maxJobBytes],
    ['maxBodyMemoryBytes', maxBodyMemoryBytes],
    ['maxRunSeconds', maxRunSeconds],
    ['maxTensorBytes', maxTensorBytes],
  ] as const) {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new BackendError(`the agent's ${name} must be a number > 0, got ${value}.`);
  }
  if (maxBodyMemoryBytes < maxJobBytes) throw new BackendError(`the agent's maxBodyMemoryBytes (${maxBodyMemoryBytes}) must hold at least one job of maxJobBytes (${maxJobBytes}).`);
  if (!Number.isSafeInteger(maxQueuedJobs) || maxQueuedJobs < 0) throw new BackendError(`the agent's maxQueuedJobs must be a whole number >= 0, got ${maxQueuedJobs}.`);
  const kinds = options.backends ?? ['cpu'];
  if (kinds.length === 0) throw new BackendError('the agent needs at least one backend.');
  return { token: options.token, kinds: [...new Set(kinds)], maxJobBytes, maxBodyMemoryBytes, maxRunSeconds, maxQueuedJobs, maxTensorBytes, http: httpLimits(options.http) };
}
