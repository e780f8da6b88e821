import type { FileHandle } from 'node:fs/promises';
import { PacedStorage, type StatedSpeeds } from '../../io/storage-device.ts';
import { BackendError } from '../backend-error.ts';
import { pageAlignedMemory, tileGemmOn } from '../cpu/kernels/wasm/tile-gemm.ts';
import { tileKey, type GemmShape, type TileId } from './gemm-shape.ts';
import { openMatrix, tileOffset } from './matrix-files.ts';
import type { GemmSchedule, Placement } from './schedule.ts';

/** What one out-of-core run did and how long it took. */
export interface ExecutionFigures {
  readonly wallMs: number;
  /** Time in the products themselves. */
  readonly computeMs: number;
  /** Time waiting for loads and writes before a product could start (and for the last writes). */
  readonly stallMs: number;
  readonly bytesRead: number;
  readonly bytesWritten: number;
  readonly tileLoads: number;
  readonly tileWrites: number;
  readonly tasks: number;
  readonly arenaBytes: number;
  /** Most tile bytes resident at once (loading, in use, or being written), as the executor saw them. */
  readonly residentHighWater: number;
  /** With stated storage speeds: how long transfers were held past their real end (what the stated device added). */
  readonly heldMs?: number;
}

export class BudgetViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetViolation';
  }
}

interface Held {
  readonly tile: TileId;
  readonly at: number;
  state: 'loading' | 'ready' | 'writing';
  done: Promise<void>;
}

/**
 * Runs a schedule: one arena of the schedule's size (a WebAssembly memory: page-aligned,
 * so tiles can be read and written with O_DIRECT straight where they lie), loads and
 * writes started as the schedule says and left to the I/O threads while the products run,
 * each product computed once its tiles are in. Checked as it goes, not assumed: a load
 * into space that a resident tile holds (other than one being written, which is awaited)
 * is a BudgetViolation, and the resident bytes never exceed the arena, which is at most
 * the budget. With `storage`, every tile read and write goes through a device of those
 * speeds (io/storage-device.ts): the run sees the stated device's time, not this machine's.
 */
export async function executeSchedule(
  schedule: GemmSchedule,
  shape: GemmShape,
  dir: string,
  options: { readonly directIo: boolean; readonly budget: number; readonly storage?: StatedSpeeds },
): Promise<ExecutionFigures> {
  if (schedule.arenaBytes > options.budget) throw new BudgetViolation(`the ${schedule.scheduler} schedule's arena (${schedule.arenaBytes} bytes) is over the budget (${options.budget}).`);
  const device = options.storage === undefined ? undefined : new PacedStorage(checkSpeeds(options.storage));
  const serve = <T>(direction: 'read' | 'write', transfer: () => Promise<T>): Promise<T> => (device === undefined ? transfer() : device.serve(direction, shape.tileBytes, transfer));
  const started = performance.now();
  const memory = pageAlignedMemory(schedule.arenaBytes);
  const bytes = new Uint8Array(memory.buffer);
  const kernel = tileGemmOn(memory);
  const { tileBytes } = shape;
  const files: Record<'A' | 'B' | 'C', FileHandle> = {
    A: await openMatrix(dir, 'A', 'read', options.directIo),
    B: await openMatrix(dir, 'B', 'read', options.directIo),
    C: await openMatrix(dir, 'C', 'write', options.directIo),
  };
  const held = new Map<string, Held>();
  /** The last write of each C tile: a read of that tile waits for it. */
  const writing = new Map<string, Promise<void>>();
  let residentBytes = 0;
  let residentHighWater = 0;
  let computeMs = 0;
  let stallMs = 0;
  let bytesRead = 0;
  let bytesWritten = 0;
  let tileLoads = 0;
  let tileWrites = 0;
  let tasks = 0;
  const slotKey = (p: Placement): string => `${tileKey(p.tile)}@${p.at}`;
  const region = (at: number): Uint8Array => bytes.subarray(at, at + tileBytes);
  const waited = async (promise: Promise<unknown>): Promise<void> => {
    const t = performance.now();
    await promise;
    stallMs += performance.now() - t;
  };
  /** Waits until [at, at + tileBytes) is free: tiles there being written are awaited; any other is a violation. */
  const claim = async (p: Placement): Promise<void> => {
    for (const h of [...held.values()]) {
      if (h.at < p.at + tileBytes && p.at < h.at + tileBytes) {
        if (h.state !== 'writing') throw new BudgetViolation(`${tileKey(p.tile)} would land on ${tileKey(h.tile)} at byte ${h.at}, which is still ${h.state}.`);
        await waited(h.done);
      }
    }
  };
  const hold = (p: Placement, state: Held['state'], done: Promise<void>): Held => {
    const h: Held = { tile: p.tile, at: p.at, state, done };
    held.set(slotKey(p), h);
    residentBytes += tileBytes;
    residentHighWater = Math.max(residentHighWater, residentBytes);
    if (residentBytes > schedule.arenaBytes) throw new BudgetViolation(`${residentBytes} tile bytes resident in a ${schedule.arenaBytes}-byte arena.`);
    return h;
  };
  const release = (p: Placement): void => {
    if (held.delete(slotKey(p))) residentBytes -= tileBytes;
  };
  const find = (tile: TileId, at: number): Held | undefined => held.get(`${tileKey(tile)}@${at}`);

  try {
    for (const step of schedule.steps()) {
      for (const p of step.evictions) release(p);
      for (const p of step.writes) {
        const h = find(p.tile, p.at);
        if (h === undefined) throw new BudgetViolation(`${tileKey(p.tile)} is written from byte ${p.at}, where it is not.`);
        await waited(h.done);
        h.state = 'writing';
        tileWrites++;
        bytesWritten += tileBytes;
        h.done = serve('write', () => files.C.write(region(p.at), 0, tileBytes, tileOffset(shape, p.tile))).then(() => release(p));
        writing.set(tileKey(p.tile), h.done);
      }
      for (const p of step.loads) {
        await claim(p);
        const pending = writing.get(tileKey(p.tile));
        if (pending !== undefined) await waited(pending);
        tileLoads++;
        bytesRead += tileBytes;
        const file = files[p.tile.matrix];
        hold(
          p,
          'loading',
          serve('read', () => file.read(region(p.at), 0, tileBytes, tileOffset(shape, p.tile))).then(() => undefined),
        );
      }
      if (step.task === undefined || step.at === undefined) continue;
      const { a, b, c } = step.at;
      const own: Placement[] = [
        { tile: { matrix: 'A', r: step.task.i, c: step.task.l }, at: a },
        { tile: { matrix: 'B', r: step.task.l, c: step.task.j }, at: b },
      ];
      const cTile: TileId = { matrix: 'C', r: step.task.i, c: step.task.j };
      if (!step.accumulate && find(cTile, c) === undefined) {
        await claim({ tile: cTile, at: c });
        hold({ tile: cTile, at: c }, 'ready', Promise.resolve());
      } else {
        own.push({ tile: cTile, at: c });
      }
      for (const p of own) {
        const h = find(p.tile, p.at);
        if (h === undefined) throw new BudgetViolation(`task (${step.task.i}, ${step.task.j}, ${step.task.l}) needs ${tileKey(p.tile)} at byte ${p.at}, where it is not.`);
        await waited(h.done);
        h.state = 'ready';
      }
      const t = performance.now();
      kernel.gemm(a, b, c, shape.tile, step.accumulate === true);
      computeMs += performance.now() - t;
      tasks++;
    }
    await waited(Promise.all([...held.values()].map((h) => h.done)));
  } finally {
    for (const file of Object.values(files)) await file.close();
  }
  const paced = device === undefined ? {} : { heldMs: device.heldMs };
  return { wallMs: performance.now() - started, computeMs, stallMs, bytesRead, bytesWritten, tileLoads, tileWrites, tasks, arenaBytes: schedule.arenaBytes, residentHighWater, ...paced };
}

/** Speeds as they arrive in the GEMM's process, checked: a rate of 0 would hold a transfer for ever. */
function checkSpeeds(storage: StatedSpeeds): StatedSpeeds {
  for (const rate of [storage.read, storage.write]) {
    if (!(Number.isFinite(rate?.bytesPerSecond) && rate.bytesPerSecond > 0)) throw new BackendError(`the GEMM process received a storage speed it cannot hold transfers to: ${JSON.stringify(rate)}.`);
  }
  return storage;
}
