import type { Partner } from './solve.ts';
import { epochMs } from '../../../core/clock.ts';

/**
 * Where the two threads of a portfolio meet (shared memory, Atomics): at its k-th
 * checkpoint each side writes its best arena and bound, then waits until the other side
 * has written its k-th too (or has finished), and both read the same pair of values.
 * Values alternate between two slots by the parity of k: a side can run at most one
 * checkpoint ahead, so the slot the other reads is never overwritten. A finished side
 * leaves its last values and an epoch no checkpoint reaches.
 *
 * Both sides stop at the first checkpoint where the better arena meets the higher bound:
 * the same decision on both sides, taken on values that depend on node counts only.
 */
export class MeetingPoint implements Partner {
  /** [epoch of side 0, epoch of side 1, finished 0, finished 1, failed 1]. */
  private readonly control: Int32Array;
  /** Slots: [parity][side][arena, bound]; then the final [side][arena, bound]. */
  private readonly values: Float64Array;
  private epoch = 0;

  constructor(
    readonly buffer: SharedArrayBuffer,
    private readonly side: 0 | 1,
    /** Epoch milliseconds after which a side stops waiting for the other (its deadline). */
    private readonly deadline: number,
  ) {
    this.control = new Int32Array(buffer, 0, 8);
    this.values = new Float64Array(buffer, 32, 12);
  }

  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(32 + 12 * 8);
  }

  exchange(arena: number, bound: number): { arena: number; bound: number; stop: boolean } {
    const k = ++this.epoch;
    const other = 1 - this.side;
    this.values[4 * (k % 2) + 2 * this.side] = arena;
    this.values[4 * (k % 2) + 2 * this.side + 1] = bound;
    Atomics.store(this.control, this.side, k);
    Atomics.notify(this.control, this.side);
    if (!this.waitFor(other, k)) return { arena: Infinity, bound: 0, stop: true };
    const finished = Atomics.load(this.control, 2 + other) === 1;
    const at = finished ? 8 + 2 * other : 4 * (k % 2) + 2 * other;
    const theirs = { arena: this.values[at], bound: this.values[at + 1] };
    return { ...theirs, stop: Math.min(arena, theirs.arena) <= Math.max(bound, theirs.bound) };
  }

  /** This side is done: its final values, and no more waiting for it. */
  finish(arena: number, bound: number, failed = false): void {
    this.values[8 + 2 * this.side] = arena;
    this.values[8 + 2 * this.side + 1] = bound;
    if (failed) Atomics.store(this.control, 4, 1);
    Atomics.store(this.control, 2 + this.side, 1);
    Atomics.store(this.control, this.side, DONE);
    Atomics.notify(this.control, this.side);
  }

  /** Waits (until `graceMs` past the deadline) for the other side to finish; false when it did not. */
  awaitOther(graceMs: number): boolean {
    return this.waitFor(1 - this.side, DONE, graceMs);
  }

  otherFailed(): boolean {
    return Atomics.load(this.control, 4) === 1;
  }

  /** Waits until side `who` reaches `epoch` (or finishes); false when the deadline (plus grace) passed first. */
  private waitFor(who: number, epoch: number, graceMs = 0): boolean {
    for (;;) {
      const seen = Atomics.load(this.control, who);
      if (seen >= epoch) return true;
      const left = this.deadline + graceMs - epochMs();
      if (left <= 0) return false;
      Atomics.wait(this.control, who, seen, Math.min(left, 1000));
    }
  }
}

/** The epoch of a finished side: beyond every checkpoint. */
const DONE = 0x7fffffff;
