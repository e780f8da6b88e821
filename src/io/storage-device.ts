import { readDueMs, type StorageBandwidth } from './storage-bandwidth.ts';

/** A device's stated speeds: reads, and writes (which flash usually serves slower than reads). */
export interface StatedSpeeds {
  readonly read: StorageBandwidth;
  readonly write: StorageBandwidth;
}

/**
 * A storage device of stated speeds standing in for this machine's own (an Odroid's eMMC for
 * a server's SSD). Transfers are served one at a time, reads and writes alike, as an eMMC
 * serves one command at a time: a transfer begins when the device is free (the previous one
 * done, at the stated speed), takes bytes / rate, and is handed back no earlier than that,
 * nor earlier than the real transfer finishes (a stated speed never speeds a disk up). The
 * real transfer runs at once; only its completion is held, so the bytes are where they
 * belong when the device says so. The same rule as storage-bandwidth.ts's readDueMs, with
 * a queue: callers here start several transfers at once (loads a task ahead, writes behind).
 */
export class PacedStorage {
  /** When (performance.now(), ms) the device has served everything it was given. */
  private freeAt = 0;
  /** Each held transfer's [real end, due]. */
  private readonly holds: [number, number][] = [];

  constructor(readonly speeds: StatedSpeeds) {}

  /** Runs `transfer` (`bytes` read or written) and resolves with its result when the stated device would have finished it. */
  async serve<T>(direction: 'read' | 'write', bytes: number, transfer: () => Promise<T>): Promise<T> {
    const start = Math.max(performance.now(), this.freeAt);
    const due = readDueMs(start, bytes, this.speeds[direction]);
    this.freeAt = due;
    const result = await transfer();
    const ended = performance.now();
    if (ended < due) {
      this.holds.push([ended, due]);
      await waitUntil(due);
    }
    return result;
  }

  /**
   * How long some transfer was held past its real end (the union of the holds: transfers
   * waiting together count once): what the stated speed added over this machine's storage.
   */
  get heldMs(): number {
    const sorted = [...this.holds].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let reached = -Infinity;
    for (const [from, to] of sorted) {
      if (to <= reached) continue;
      total += to - Math.max(from, reached);
      reached = to;
    }
    return total;
  }
}

/**
 * Waits until performance.now() reaches `due`. Timers alone fire a millisecond or more late,
 * and a GEMM of small tiles waits thousands of times for sub-millisecond transfers: the
 * stated device would look slower than stated. So a timer takes the bulk and the last
 * 2 ms pass in event-loop turns (setImmediate), which let every other completion through.
 */
export async function waitUntil(due: number): Promise<void> {
  const bulk = due - performance.now() - 2;
  if (bulk > 0) await new Promise((resolve) => setTimeout(resolve, bulk));
  while (performance.now() < due) await new Promise((resolve) => setImmediate(resolve));
}
