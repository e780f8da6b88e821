interface Waiter {
  readonly address: string;
  readonly bytes: number;
  grant(): void;
}

/**
 * The request bodies a server holds in memory: at most one per client address at a time, and
 * at most `totalBytes` together. A body waits, unread (its client is held back by TCP), until
 * its turn; whoever holds one gives it back with the release function once the body has gone
 * where it goes (a job process, a device) or was refused.
 */
export class BodyBudget {
  private held = 0;
  private readonly holders = new Set<string>();
  private readonly waiters: Waiter[] = [];

  constructor(readonly totalBytes: number) {}

  /** Bytes held now. */
  get heldBytes(): number {
    return this.held;
  }

  /**
   * Resolves with the release function once this address holds no other body and `bytes`
   * fit (a body larger than the whole budget takes the whole budget); with undefined when
   * `signal` aborts first (the client went away while it waited).
   */
  acquire(address: string, bytes: number, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const want = Math.min(bytes, this.totalBytes);
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      const waiter: Waiter = {
        address,
        bytes: want,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.held += want;
          this.holders.add(address);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.held -= want;
            this.holders.delete(address);
            this.grantWaiting();
          });
        },
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.grantWaiting();
    });
  }

  /** Grants waiting bodies in the order they came, each that fits now. */
  private grantWaiting(): void {
    for (let k = 0; k < this.waiters.length; ) {
      const waiter = this.waiters[k];
      if (!this.holders.has(waiter.address) && this.held + waiter.bytes <= this.totalBytes) {
        this.waiters.splice(k, 1);
        waiter.grant();
      } else {
        k++;
      }
    }
  }
}
