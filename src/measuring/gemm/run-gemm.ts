import { existsSync } from 'node:fs';
import { readFile, rm, stat, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { formatByteSize } from '../../io/byte-size.ts';
import { BackendError } from '../../backends/backend-error.ts';
import { forkMeasured } from '../isolation/measured-child.ts';
import { checkProduct, type ProductCheck } from '../../backends/gemm/check-product.ts';
import { gemmFlops, gemmShape, type GemmShape, type Matrix } from '../../backends/gemm/gemm-shape.ts';
import type { GemmJob, GemmJobResult } from './gemm-job.ts';
import { plannedSchedule } from '../../backends/gemm/planned-schedule.ts';
import { directIoWorks, emptyProduct, matrixFilesBytes, matrixPath, writeInputs } from '../../backends/gemm/matrix-files.ts';
import type { SchedulerKind } from '../../backends/gemm/schedule.ts';
import { makeFolder } from '../../io/make-folder.ts';
import type { StorageBandwidth } from '../../io/storage-bandwidth.ts';
import type { StatedSpeeds } from '../../io/storage-device.ts';

export interface GemmOptions {
  readonly n: number;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
  /** Where the matrices live (default: a folder under the system's temporary directory). */
  readonly dir?: string;
  /** Bypass the page cache: 'auto' (default) where the file system takes O_DIRECT. */
  readonly directIo?: boolean | 'auto';
  readonly seed: number;
  /** Hold tile reads and writes to these speeds (a stated device, e.g. the authors' eMMC); absent: this machine's storage as it is. */
  readonly storage?: StatedSpeeds;
}

/** The JSON of `memplan gemm`. */
export interface GemmReport {
  readonly n: number;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
  readonly policy: string;
  readonly directIo: boolean;
  readonly seed: number;
  readonly wallMs: number;
  readonly computeMs: number;
  readonly stallMs: number;
  readonly io: { readonly bytesRead: number; readonly bytesWritten: number; readonly tileLoads: number; readonly tileWrites: number };
  /**
   * The storage speeds the run's transfers were held to (null: this machine's own, unheld),
   * and how long the stated device held them past their real end.
   */
  readonly storage: { readonly read: StorageBandwidth | null; readonly write: StorageBandwidth | null; readonly heldMs: number | null };
  /** Most tile bytes resident at once, and the arena that held them (both at most the budget). */
  readonly tiles: { readonly residentHighWater: number; readonly arenaBytes: number; readonly tasks: number };
  readonly plan?: GemmJobResult['plan'];
  /** Of the products alone, and of the whole run. */
  readonly gflops: { readonly compute: number; readonly wall: number };
  readonly memory: { readonly baselineRss: number; readonly peakRss: number; readonly peakRssDelta: number; readonly method: string };
  readonly check: ProductCheck;
  /** Where A, B and C were left (reused by the next run of this size and seed), and their bytes. */
  readonly files: { readonly dir: string; readonly bytes: number };
}

const DONE = 'C.done.json';

/** The default folder of the matrices: one per size and seed, reused across runs. */
export function defaultGemmDir(n: number, seed: number): string {
  return join(tmpdir(), 'memplan-gemm', `n${n}-seed${seed}`);
}

/**
 * A, B (seeded) in `dir` for this tile size: written unless the folder already holds them
 * (inputs.json names what it holds). C's done-marker goes before any run, so a run that is
 * killed leaves no C that reads as finished. A folder whose disk cannot hold the three
 * matrices is refused before anything is written; a write that fails anyway (the disk
 * filled meanwhile) removes the matrices it was writing, so no half-written input is
 * reused by a later run.
 */
async function prepareInputs(dir: string, n: number, tile: number, seed: number): Promise<void> {
  const marker = join(dir, 'inputs.json');
  const wanted = JSON.stringify({ n, tile, seed, layout: 'tile-major; B packed in panels of 8 columns', version: 1 });
  await makeFolder(dir);
  await rm(join(dir, DONE), { force: true });
  const shape = gemmShape(n, tile);
  const reuse = existsSync(marker) && (await readFile(marker, 'utf8')) === wanted;
  await checkRoom(dir, shape, reuse);
  try {
    if (!reuse) {
      await rm(marker, { force: true });
      await writeInputs(dir, shape, seed);
      await writeFileAtomic(marker, wanted);
    }
    await emptyProduct(dir, shape);
  } catch (error) {
    await removeMatrices(dir, reuse ? ['C'] : ['A', 'B', 'C']);
    throw error;
  }
}

/** Refuses a folder whose file system has less room than the matrices still to write. */
async function checkRoom(dir: string, shape: GemmShape, reuse: boolean): Promise<void> {
  const present = async (matrix: Matrix): Promise<number> => {
    const path = matrixPath(dir, matrix);
    return existsSync(path) ? (await stat(path)).blocks * 512 : 0;
  };
  // What the writes will add: the matrices' bytes less the blocks their files hold already.
  const kept = reuse ? (await present('A')) + (await present('B')) : 0;
  const needed = matrixFilesBytes(shape) - kept - (await present('C'));
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  if (needed > free) {
    throw new BackendError(`${dir}: the GEMM's matrices need ${formatByteSize(needed)} more on this disk and it has ${formatByteSize(free)} free; free some room or give another --dir.`);
  }
}

async function removeMatrices(dir: string, matrices: readonly Matrix[]): Promise<void> {
  for (const matrix of matrices) await rm(matrixPath(dir, matrix), { force: true });
  if (matrices.includes('A')) await rm(join(dir, 'inputs.json'), { force: true });
}

/** Whether `dir` holds a C that a finished run wrote for these options. */
export async function finishedProduct(dir: string): Promise<Record<string, unknown> | undefined> {
  const path = join(dir, DONE);
  return existsSync(path) ? (JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>) : undefined;
}

/**
 * `memplan gemm`: writes the inputs (once per folder and tile size), runs the GEMM out of
 * core in a process of its own (its peak is the GEMM's), marks C finished, and checks C
 * against the seeded inputs.
 */
export async function runGemm(options: GemmOptions): Promise<GemmReport> {
  const shape = gemmShape(options.n, options.tile);
  const dir = options.dir ?? defaultGemmDir(options.n, options.seed);
  await prepareInputs(dir, options.n, options.tile, options.seed);
  const directIo = options.directIo === 'auto' || options.directIo === undefined ? await directIoWorks(dir) : options.directIo;
  // The harness plans (the planned scheduler's offsets), the measured process replays and verifies.
  const planned = options.scheduler === 'planned' ? plannedSchedule(shape, options.budget) : undefined;
  const job: GemmJob = {
    dir,
    n: options.n,
    tile: options.tile,
    budget: options.budget,
    scheduler: options.scheduler,
    directIo,
    ...(planned ? { planned: { policy: planned.residency, planner: planned.plan.planner, offsets: planned.plan.offsets } } : {}),
    ...(options.storage ? { storage: options.storage } : {}),
  };
  let result: GemmJobResult;
  try {
    result = await forkMeasured<GemmJobResult>(import.meta.url, './gemm-process', [], (post) => post({ type: 'job', job }));
  } catch (error) {
    // A run that failed part-way leaves a C that is neither zeros nor the product.
    await removeMatrices(dir, ['C']);
    throw error;
  }
  await writeFileAtomic(join(dir, DONE), `${JSON.stringify({ n: options.n, tile: options.tile, seed: options.seed, scheduler: options.scheduler, budget: options.budget })}\n`);
  const check = await checkProduct(dir, shape, options.seed);
  const f = result.figures;
  const flops = gemmFlops(shape);
  return {
    files: { dir, bytes: matrixFilesBytes(shape) },
    n: options.n,
    tile: options.tile,
    budget: options.budget,
    scheduler: options.scheduler,
    policy: result.policy,
    directIo,
    seed: options.seed,
    wallMs: f.wallMs,
    computeMs: f.computeMs,
    stallMs: f.stallMs,
    io: { bytesRead: f.bytesRead, bytesWritten: f.bytesWritten, tileLoads: f.tileLoads, tileWrites: f.tileWrites },
    storage: { read: options.storage?.read ?? null, write: options.storage?.write ?? null, heldMs: f.heldMs ?? null },
    tiles: { residentHighWater: f.residentHighWater, arenaBytes: f.arenaBytes, tasks: f.tasks },
    ...(result.plan ? { plan: result.plan } : {}),
    gflops: { compute: flops / f.computeMs / 1e6, wall: flops / f.wallMs / 1e6 },
    memory: {
      baselineRss: result.baselineRss,
      peakRss: result.peakRss,
      peakRssDelta: result.peakRss - result.baselineRss,
      method: `${result.rssMethod}; measured in an isolated process that ran this GEMM alone`,
    },
    check,
  };
}
