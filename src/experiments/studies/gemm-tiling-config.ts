import { gemmShape, type GemmShape } from '../../backends/gemm/gemm-shape.ts';
import { budgetProblem, type SchedulerKind } from '../../backends/gemm/schedule.ts';
import { formatByteSize, parseByteSize } from '../../io/byte-size.ts';
import { parseStorageBandwidth, type StorageBandwidth } from '../../io/storage-bandwidth.ts';
import type { StatedSpeeds } from '../../io/storage-device.ts';
import type { StudyConfig } from '../study.ts';
import { type GemmGridFile, type GemmTilingFile, gemmTilingSchema, SCHEDULERS } from './gemm-tiling-schema.ts';
import { checkFile, type Fail, failIn } from '../file-check.ts';

/**
 * The file of the GEMM-tiling study (experiments/gemm-tiling.json): a grid of tile sizes
 * and budgets (every cell that can run does; the authors' Figure 2 is its row at one
 * budget, Figure 3 its column at one tile), the schedulers, the storage each cell runs on
 * (this machine's own, and stated devices such as the authors' eMMC), how many runs, a
 * smaller grid for `--quick`, and the authors' figures as published. Its shape is checked by
 * its schema (gemm-tiling-schema.ts); what one field says of another, here.
 */
export interface GemmGrid {
  readonly n: number;
  readonly seed: number;
  /** Runs per cell, each in a process of its own; the report gives medians and their 95% intervals. */
  readonly repetitions: number;
  readonly tiles: readonly number[];
  readonly budgets: readonly number[];
  /** Figure 2: every tile at this budget (one of `budgets`; the untiled GEMM must run there). */
  readonly figure2Budget: number;
  /** Figure 3: every budget at this tile (one of `tiles`). */
  readonly figure3Tile: number;
}

/** Where a cell's tiles are read from and written to. */
export interface GemmStorage {
  /** Names the storage in cells and file names. */
  readonly id: string;
  readonly label: string;
  /** The stated device's speeds; absent: this machine's storage, unheld. */
  readonly speeds?: StatedSpeeds;
  /** Where the stated speed comes from, for the report. */
  readonly source?: string;
}

export interface GemmTilingConfig extends StudyConfig, GemmGrid {
  readonly schedulers: readonly SchedulerKind[];
  readonly storage: readonly GemmStorage[];
  /** Time onnxruntime's MatMul on the same n, once. */
  readonly peer: boolean;
  /** The smaller grid (`--quick`), on the same schedulers and storage. */
  readonly quick?: GemmGrid;
  /** The authors' figures (Odroid-XU4, ArmCL), carried as published. */
  readonly published: {
    /** Their matrices' side (4096). */
    readonly n: number;
    readonly untiled: { readonly peakMB: number; readonly seconds: number };
    readonly smallest: { readonly tile: number; readonly budgetMB: number; readonly peakMB: number; readonly seconds: number };
  };
}

/** A (tile, budget) of the grid. */
export interface GridCell {
  readonly tile: number;
  readonly budget: number;
}

/** A cell of the grid that cannot run, and why (in one sentence). */
export interface InfeasibleCell extends GridCell {
  readonly why: string;
}

/** The grid's cells that can run (a budget holding one step's three tiles) and those that cannot, in the file's order. */
export function gridCells(grid: Pick<GemmGrid, 'n' | 'tiles' | 'budgets'>): { feasible: GridCell[]; infeasible: InfeasibleCell[] } {
  const feasible: GridCell[] = [];
  const infeasible: InfeasibleCell[] = [];
  for (const tile of grid.tiles) {
    const shape = gemmShape(grid.n, tile);
    for (const budget of grid.budgets) {
      const why = budgetProblem(shape, budget);
      if (why === undefined) feasible.push({ tile, budget });
      else infeasible.push({ tile, budget, why });
    }
  }
  return { feasible, infeasible };
}

export function parseGemmTiling(data: Record<string, unknown>, file: string): GemmTilingConfig {
  const o = checkFile(gemmTilingSchema(), data, file);
  const fail = failIn(file);
  const quick = o.quick === undefined ? undefined : parseGrid(fail, o.quick, '$.quick');
  const schedulers = [...(o.schedulers ?? SCHEDULERS)];
  unique(fail, schedulers, '$.schedulers', (s) => s);
  return {
    name: o.name,
    title: o.title,
    ...parseGrid(fail, o, '$'),
    schedulers,
    storage: parseStorage(fail, o.storage, '$.storage'),
    peer: o.peer ?? true,
    ...(quick ? { quick } : {}),
    published: o.published,
  };
}

/** What the schema cannot say of a grid: tiles that fit n, sizes read, the figures among the grid's tiles and budgets. */
function parseGrid(fail: Fail, o: GemmGridFile, path: string): GemmGrid {
  const { n, tiles } = o;
  const shapes = new Map<number, GemmShape>();
  tiles.forEach((tile, k) => {
    try {
      shapes.set(tile, gemmShape(n, tile));
    } catch (error) {
      fail(`${path}.tiles[${k}]`, (error as Error).message);
    }
  });
  unique(fail, tiles, `${path}.tiles`, String);
  // Every ratio of the report is taken against the untiled GEMM (the tile equal to n).
  if (!tiles.includes(n)) fail(`${path}.tiles`, `must hold n (${n}): the untiled GEMM is the baseline every ratio is taken against.`);
  const budgets = o.budgets.map((b, k) => bytes(fail, b, `${path}.budgets[${k}]`));
  unique(fail, budgets, `${path}.budgets`, formatByteSize);
  const figure2Budget = bytes(fail, o.figure2.budget, `${path}.figure2.budget`);
  if (!budgets.includes(figure2Budget)) fail(`${path}.figure2.budget`, `${formatByteSize(figure2Budget)} is not one of ${path}.budgets: a figure is a slice of the grid.`);
  const untiled = budgetProblem(shapes.get(n)!, figure2Budget);
  if (untiled !== undefined) fail(`${path}.figure2.budget`, `the untiled GEMM must run at Figure 2's budget, and ${untiled}`);
  const figure3Tile = o.figure3.tile;
  if (!tiles.includes(figure3Tile)) fail(`${path}.figure3.tile`, `${figure3Tile} is not one of ${path}.tiles: a figure is a slice of the grid.`);
  return { n, seed: o.seed ?? 1, repetitions: o.repetitions ?? 1, tiles, budgets, figure2Budget, figure3Tile };
}

/** A size in bytes as written (a whole number, or a string such as "4MiB"): at least one byte. */
function bytes(fail: Fail, value: string | number, path: string): number {
  let size: number;
  try {
    size = parseByteSize(value);
  } catch (error) {
    return fail(path, (error as Error).message);
  }
  if (size < 1) fail(path, 'must be at least 1 byte.');
  return size;
}

/** Fails on the second occurrence of a value, naming it. */
function unique<T>(fail: Fail, values: readonly T[], path: string, show: (value: T) => string): void {
  values.forEach((value, k) => {
    if (values.indexOf(value) !== k) fail(`${path}[${k}]`, `${show(value)} is listed twice.`);
  });
}

/**
 * The storage list. A stated device gives `read` (per second, e.g. "400MB"); its writes are
 * held to the same speed unless `write` states another, and `source` says where the figure
 * comes from. Without `read`, the cell runs on this machine's storage as it is.
 */
function parseStorage(fail: Fail, entries: GemmTilingFile['storage'], path: string): GemmStorage[] {
  const list = (entries ?? [{ id: 'native', label: "this machine's storage" }]).map((entry, k): GemmStorage => {
    const at = `${path}[${k}]`;
    const speed = (field: 'read' | 'write'): StorageBandwidth | undefined => {
      const value = entry[field];
      if (value === undefined) return undefined;
      try {
        return parseStorageBandwidth(value);
      } catch (error) {
        return fail(`${at}.${field}`, (error as Error).message);
      }
    };
    const read = speed('read');
    const write = speed('write');
    if (write !== undefined && read === undefined) fail(`${at}.write`, "needs read: state the device's read speed too.");
    return {
      id: entry.id,
      label: entry.label,
      ...(read ? { speeds: { read, write: write ?? read } } : {}),
      ...(entry.source === undefined ? {} : { source: entry.source }),
    };
  });
  unique(
    fail,
    list.map((s) => s.id),
    path,
    (id) => `the id "${id}"`,
  );
  return list;
}
