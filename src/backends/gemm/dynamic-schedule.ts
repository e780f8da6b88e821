import { BackendError } from '../backend-error.ts';
import { taskTiles, tileKey, type GemmShape, type GemmTask, type TileId } from './gemm-shape.ts';
import { budgetProblem, type GemmSchedule, type Placement, type ScheduleStep } from './schedule.ts';

interface Resident {
  readonly tile: TileId;
  readonly slot: number;
  lastUse: number;
  /** A C tile with sums not on storage yet. */
  dirty: boolean;
}

/**
 * The authors' scheduler (BLAS-on-flash, as Jo, Lee and Shin use it), decided as it runs:
 * tiles live in equal slots of the budget; the next task is the ready one (the next task
 * of some unfinished C tile) that needs the fewest new bytes (ties: the lowest C tile in
 * row-major order); its tiles are loaded one task ahead when slots allow without touching
 * the running task's, evicting the least recently used unpinned tiles (a C tile with
 * partial sums is written out, and read back when its next task comes); a finished C tile
 * is written and leaves. At most two tasks are in flight: the one computing and the one
 * loading. It scans every C tile per task: fine for the tile counts of the study (up to
 * 16 a side), quadratic beyond.
 */
export function dynamicSchedule(shape: GemmShape, budget: number): GemmSchedule {
  const tooSmall = budgetProblem(shape, budget);
  if (tooSmall !== undefined) throw new BackendError(tooSmall);
  const distinct = 3 * shape.tiles * shape.tiles;
  const slots = Math.min(Math.floor(budget / shape.tileBytes), distinct);
  return {
    scheduler: 'dynamic',
    arenaBytes: slots * shape.tileBytes,
    policy: `${slots} tile slots, fewest new bytes first, one task ahead`,
    steps: () => dynamicSteps(shape, slots),
  };
}

function* dynamicSteps(shape: GemmShape, slotCount: number): Iterable<ScheduleStep> {
  const { tiles, tileBytes } = shape;
  const chains = tiles * tiles;
  const nextL = new Int32Array(chains);
  const resident = new Map<string, Resident>();
  const free: number[] = Array.from({ length: slotCount }, (_, k) => slotCount - 1 - k);
  let clock = 0;
  let evictions: Placement[] = [];
  let writes: Placement[] = [];
  let loads: Placement[] = [];
  const placed = (r: Resident): Placement => ({ tile: r.tile, at: r.slot * tileBytes });

  const missing = (task: GemmTask): TileId[] => {
    const { a, b, c } = taskTiles(task);
    return [a, b, c].filter((t) => !resident.has(tileKey(t)));
  };
  const newBytes = (task: GemmTask): number => missing(task).filter((t) => t.matrix !== 'C' || task.l > 0).length * tileBytes;
  /** The ready task needing the fewest new bytes; `advanced` counts as one task further on. */
  const choose = (advanced?: GemmTask): GemmTask | undefined => {
    let best: GemmTask | undefined;
    let bestBytes = Infinity;
    for (let chain = 0; chain < chains; chain++) {
      const i = Math.floor(chain / tiles);
      const j = chain % tiles;
      const l = nextL[chain] + (advanced && advanced.i === i && advanced.j === j ? 1 : 0);
      if (l >= tiles) continue;
      const task = { i, j, l };
      const bytes = newBytes(task);
      if (bytes < bestBytes) {
        best = task;
        bestBytes = bytes;
      }
    }
    return best;
  };
  /** Slots for `tiles`, evicting the least recently used tiles not pinned; false (nothing changed) when they do not fit. */
  const reserve = (wanted: readonly TileId[], pinned: ReadonlySet<string>): boolean => {
    const evictable = [...resident.values()].filter((r) => !pinned.has(tileKey(r.tile))).sort((x, y) => x.lastUse - y.lastUse);
    if (free.length + evictable.length < wanted.length) return false;
    while (free.length < wanted.length) {
      const victim = evictable.shift()!;
      resident.delete(tileKey(victim.tile));
      if (victim.dirty) writes.push(placed(victim));
      else evictions.push(placed(victim));
      free.push(victim.slot);
    }
    return true;
  };
  const bring = (task: GemmTask, tiles: readonly TileId[]): void => {
    for (const tile of tiles) {
      const r: Resident = { tile, slot: free.pop()!, lastUse: clock, dirty: false };
      resident.set(tileKey(tile), r);
      // A fresh C tile (l = 0) is written by its first product, not read.
      if (tile.matrix !== 'C' || task.l > 0) loads.push(placed(r));
    }
  };

  let current = choose();
  while (current !== undefined) {
    const own = taskTiles(current);
    const ownKeys = new Set([own.a, own.b, own.c].map(tileKey));
    const absent = missing(current);
    if (absent.length > 0) {
      if (!reserve(absent, ownKeys)) throw new Error('the dynamic scheduler lost its own tiles: fewer than three slots.');
      bring(current, absent);
    }
    // One task ahead, in slots the running task does not hold.
    const next = choose(current);
    if (next !== undefined) {
      const ahead = missing(next).filter((t) => !ownKeys.has(tileKey(t)));
      const pinned = new Set([...ownKeys, ...[taskTiles(next).a, taskTiles(next).b, taskTiles(next).c].map(tileKey)]);
      if (ahead.length > 0 && reserve(ahead, pinned)) {
        bring(next, ahead);
      }
    }
    const where = (t: TileId): number => resident.get(tileKey(t))!.slot * tileBytes;
    yield { task: current, at: { a: where(own.a), b: where(own.b), c: where(own.c) }, accumulate: current.l > 0, evictions, writes, loads };
    evictions = [];
    writes = [];
    loads = [];
    clock++;
    for (const t of [own.a, own.b, own.c]) resident.get(tileKey(t))!.lastUse = clock;
    const c = resident.get(tileKey(own.c))!;
    c.dirty = true;
    const chain = current.i * tiles + current.j;
    nextL[chain]++;
    if (nextL[chain] === tiles) {
      // Finished: written at the next step, its slot free for loads that wait for the write.
      resident.delete(tileKey(own.c));
      writes.push(placed(c));
      free.push(c.slot);
    }
    current = next;
  }
  for (const r of resident.values()) if (r.dirty) writes.push(placed(r));
  yield { evictions, writes, loads: [] };
}
