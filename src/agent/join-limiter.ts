interface Tries {
  /** Wrong codes sent so far. */
  failures: number;
  /** Tries whose code is still being read. */
  pending: number;
  /** Refused until then (ms since the epoch); 0 when not blocked. */
  until: number;
}

/** One try to join, taken before its code is read: say how it went, once. */
export interface JoinTry {
  /** The right code: the address starts afresh. */
  succeeded(): void;
  /** A wrong code: counted against the address. */
  failed(): void;
  /** No code was read (the body was not JSON, or the client went away): not counted. */
  abandoned(): void;
}

/**
 * How many wrong pairing codes an address may send: `maxFailures`, then it is refused for
 * `blockMs`, after which it gets one try at a time (a wrong one blocks it again). A try is
 * taken when its request arrives, before its body is read, and an address has as many tries
 * in flight as it has left: codes sent all at once are held to the same count as codes sent
 * one after another.
 */
export class JoinLimiter {
  private readonly addresses = new Map<string, Tries>();

  constructor(
    readonly maxFailures: number,
    readonly blockMs: number,
  ) {}

  /** A try for `address`, or undefined when it has none left now (answer 429). */
  begin(address: string): JoinTry | undefined {
    const now = Date.now();
    this.prune(now);
    const tries = this.addresses.get(address) ?? { failures: 0, pending: 0, until: 0 };
    if (tries.until > now) return undefined;
    const left = tries.failures >= this.maxFailures ? 1 : this.maxFailures - tries.failures;
    if (tries.pending >= left) return undefined;
    tries.pending++;
    this.addresses.set(address, tries);
    let settled = false;
    const settle = (how: 'succeeded' | 'failed' | 'abandoned'): void => {
      if (settled) return;
      settled = true;
      tries.pending--;
      if (how === 'succeeded') tries.failures = 0;
      if (how === 'failed' && ++tries.failures >= this.maxFailures) tries.until = Date.now() + this.blockMs;
      if (tries.failures === 0 && tries.pending === 0) this.addresses.delete(address);
    };
    return { succeeded: () => settle('succeeded'), failed: () => settle('failed'), abandoned: () => settle('abandoned') };
  }

  /** Forgets addresses whose block is over and that have nothing in flight, once there are many (their memory is bounded). */
  private prune(now: number): void {
    if (this.addresses.size < 4096) return;
    for (const [address, tries] of this.addresses) {
      if (tries.pending === 0 && tries.until <= now) this.addresses.delete(address);
    }
  }
}
