import { BackendError } from '../../backends/backend-error.ts';

/**
 * What a server that strangers can reach (memplan agent, the device hub) allows a
 * connection, so that idle or slow sockets cannot lock proper clients out.
 */
export interface HttpLimits {
  /** A connection must send a request's headers within this long of opening, or of its last answer; else 408 and closed. */
  readonly headersTimeoutMs: number;
  /** A body must arrive at least this fast on average (bytes a second), counted after `bodyGraceMs`; else 408. */
  readonly minBodyBytesPerSecond: number;
  /** How long a body may take to get going before its pace counts. */
  readonly bodyGraceMs: number;
  /** An answer the client stops reading is cut after this long without progress. */
  readonly sendStallMs: number;
  /**
   * Open connections from one address. When one more arrives, the address's oldest connection
   * that has no request in progress is closed to make room; with none, the new one gets 503.
   */
  readonly maxConnectionsPerAddress: number;
  /** Open connections in all; past it, the same rule as per address, over every address. */
  readonly maxConnections: number;
}

/**
 * Sane for a phone on a slow network and a harness on a LAN alike: headers take a few
 * hundred bytes (5 s is ample), a 256 MiB job at the minimum pace takes 4.5 hours (no
 * proper client is that slow, a trickle of a byte a second is cut in seconds), and 32
 * connections are more than a browser (6 per origin) and a harness together open.
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 5000,
  minBodyBytesPerSecond: 16 * 1024,
  bodyGraceMs: 5000,
  sendStallMs: 30_000,
  maxConnectionsPerAddress: 32,
  maxConnections: 256,
};

/** The limits with `given` over the defaults, each checked (a BackendError names the first that is wrong). */
export function httpLimits(given: Partial<HttpLimits> = {}): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new BackendError(`the HTTP limit ${name} must be a number > 0, got ${String(value)}.`);
  }
  for (const name of ['maxConnectionsPerAddress', 'maxConnections'] as const) {
    if (!Number.isSafeInteger(limits[name])) throw new BackendError(`the HTTP limit ${name} must be a whole number, got ${limits[name]}.`);
  }
  if (limits.maxConnectionsPerAddress > limits.maxConnections) {
    throw new BackendError(`the HTTP limit maxConnectionsPerAddress (${limits.maxConnectionsPerAddress}) is more than maxConnections (${limits.maxConnections}).`);
  }
  return limits;
}
