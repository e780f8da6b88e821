import type { GemmShape, GemmTask, TileId } from './gemm-shape.ts';

/** A tile at a byte offset of the arena. */
export interface Placement {
  readonly tile: TileId;
  readonly at: number;
}

/**
 * What the executor does at one step, in this order: A and B tiles leave the arena
 * (`evictions`); C tiles leave it after they are written (`writes`, started now, their
 * space free once written); tiles are loaded (`loads`: this task's and, ahead of time,
 * later tasks'; a load into space still being written waits for the write); then the task
 * is computed once its tiles are in. A last step without a task writes what is left.
 */
export interface ScheduleStep {
  readonly task?: GemmTask;
  /** Arena offsets of the task's A, B and C tiles. */
  readonly at?: { readonly a: number; readonly b: number; readonly c: number };
  /** False where the C tile starts (l = 0, or nothing of it written yet): written, not read. */
  readonly accumulate?: boolean;
  readonly evictions: readonly Placement[];
  readonly writes: readonly Placement[];
  readonly loads: readonly Placement[];
}

export type SchedulerKind = 'dynamic' | 'planned';

export interface GemmSchedule {
  readonly scheduler: SchedulerKind;
  /** Bytes of the one arena every tile lives in (at most the budget). */
  readonly arenaBytes: number;
  /** How it keeps tiles (reuse, prefetch), in words, for reports. */
  readonly policy: string;
  steps(): Iterable<ScheduleStep>;
}

/** The smallest budget any schedule needs: one step's three tiles (A, B, C). */
export function smallestBudget(tileBytes: number): number {
  return 3 * tileBytes;
}

/** Why `budget` cannot run a GEMM of `shape` (too small for one step), or undefined when it can. */
export function budgetProblem(shape: GemmShape, budget: number): string | undefined {
  const minimum = smallestBudget(shape.tileBytes);
  if (budget >= minimum) return undefined;
  return `a budget of ${bytes(budget)} cannot hold one step of a ${shape.tile}x${shape.tile}-tile GEMM (A, B and C tiles: ${bytes(minimum)}); the smallest budget that works is ${bytes(minimum)}.`;
}

/** Exact, unlike io/byte-size.ts's formatByteSize (which shows 12287 bytes as 12 KiB): a budget one byte short must read as short. */
function bytes(n: number): string {
  return n % 2 ** 20 === 0 ? `${n / 2 ** 20} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
