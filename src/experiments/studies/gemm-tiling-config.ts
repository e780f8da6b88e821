import { gemmShape, type GemmShape } from '../../backends/gemm/gemm-shape.ts';
import { budgetProblem, type SchedulerKind } from '../../backends/gemm/schedule.ts';
import { formatByteSize } from '../../io/byte-size.ts';
import { parseStorageBandwidth, type StorageBandwidth } from '../../io/storage-bandwidth.ts';
import type { StatedSpeeds } from '../../io/storage-device.ts';
import { JsonFields } from '../json-fields.ts';
import type { StudyConfig } from '../study.ts';

/**
 * The file of the GEMM-tiling study (experiments/gemm-tiling.json): a grid of tile sizes
 * and budgets (every cell that can run does; the authors' Figure 2 is its row at one
 * budget, Figure 3 its column at one tile), the schedulers, the storage each cell runs on
 * (this machine's own, and stated devices such as the authors' eMMC), how many runs, a
 * smaller grid for `--quick`, and the authors' figures as published.
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

const SCHEDULERS: readonly SchedulerKind[] = ['dynamic', 'planned'];
const TOP = ['$comment', 'study', 'name', 'title', 'n', 'seed', 'repetitions', 'tiles', 'budgets', 'figure2', 'figure3', 'schedulers', 'storage', 'peer', 'quick', 'published'];
const GRID = ['n', 'seed', 'repetitions', 'tiles', 'budgets', 'figure2', 'figure3'];

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
  const j = new JsonFields(file);
  j.only(data, TOP, '$');
  const quick = data.quick === undefined ? undefined : parseGrid(j, j.object(data.quick, '$.quick'), '$.quick', true);
  const schedulers = j.array(data.schedulers ?? SCHEDULERS, '$.schedulers').map((s, k) => j.choice(s, `$.schedulers[${k}]`, SCHEDULERS));
  unique(j, schedulers, '$.schedulers', (s) => s);
  return {
    name: j.name(data.name, '$.name'),
    title: j.string(data.title, '$.title'),
    ...parseGrid(j, data, '$', false),
    schedulers,
    storage: parseStorage(j, data.storage, '$.storage'),
    peer: data.peer === undefined ? true : j.boolean(data.peer, '$.peer'),
    ...(quick ? { quick } : {}),
    published: parsePublished(j, data.published),
  };
}

function parseGrid(j: JsonFields, o: Record<string, unknown>, path: string, nested: boolean): GemmGrid {
  if (nested) j.only(o, GRID, path);
  const n = j.integer(o.n, `${path}.n`, 32);
  const shapes = new Map<number, GemmShape>();
  const tiles = j.array(o.tiles, `${path}.tiles`).map((t, k) => {
    const tile = j.integer(t, `${path}.tiles[${k}]`, 32);
    try {
      shapes.set(tile, gemmShape(n, tile));
    } catch (error) {
      j.fail(`${path}.tiles[${k}]`, (error as Error).message);
    }
    return tile;
  });
  unique(j, tiles, `${path}.tiles`, String);
  // Every ratio of the report is taken against the untiled GEMM (the tile equal to n).
  if (!tiles.includes(n)) j.fail(`${path}.tiles`, `must hold n (${n}): the untiled GEMM is the baseline every ratio is taken against.`);
  const budgets = j.array(o.budgets, `${path}.budgets`).map((b, k) => j.bytes(b, `${path}.budgets[${k}]`));
  unique(j, budgets, `${path}.budgets`, formatByteSize);
  const figure2 = j.object(o.figure2, `${path}.figure2`);
  j.only(figure2, ['budget'], `${path}.figure2`);
  const figure2Budget = j.bytes(figure2.budget, `${path}.figure2.budget`);
  if (!budgets.includes(figure2Budget)) j.fail(`${path}.figure2.budget`, `${formatByteSize(figure2Budget)} is not one of ${path}.budgets: a figure is a slice of the grid.`);
  const untiled = budgetProblem(shapes.get(n)!, figure2Budget);
  if (untiled !== undefined) j.fail(`${path}.figure2.budget`, `the untiled GEMM must run at Figure 2's budget, and ${untiled}`);
  const figure3 = j.object(o.figure3, `${path}.figure3`);
  j.only(figure3, ['tile'], `${path}.figure3`);
  const figure3Tile = j.integer(figure3.tile, `${path}.figure3.tile`, 32);
  if (!tiles.includes(figure3Tile)) j.fail(`${path}.figure3.tile`, `${figure3Tile} is not one of ${path}.tiles: a figure is a slice of the grid.`);
  return { n, seed: j.integer(o.seed ?? 1, `${path}.seed`), repetitions: j.integer(o.repetitions ?? 1, `${path}.repetitions`, 1), tiles, budgets, figure2Budget, figure3Tile };
}

/** Fails on the second occurrence of a value, naming it. */
function unique<T>(j: JsonFields, values: readonly T[], path: string, show: (value: T) => string): void {
  values.forEach((value, k) => {
    if (values.indexOf(value) !== k) j.fail(`${path}[${k}]`, `${show(value)} is listed twice.`);
  });
}

/**
 * The storage list. A stated device gives `read` (per second, e.g. "400MB"); its writes are
 * held to the same speed unless `write` states another, and `source` says where the figure
 * comes from. Without `read`, the cell runs on this machine's storage as it is.
 */
function parseStorage(j: JsonFields, value: unknown, path: string): GemmStorage[] {
  const list = j.array(value ?? [{ id: 'native', label: "this machine's storage" }], path).map((entry, k): GemmStorage => {
    const at = `${path}[${k}]`;
    const o = j.object(entry, at);
    j.only(o, ['id', 'label', 'read', 'write', 'source'], at);
    const speed = (field: 'read' | 'write'): StorageBandwidth | undefined => {
      if (o[field] === undefined) return undefined;
      if (typeof o[field] !== 'string' && typeof o[field] !== 'number') return j.fail(`${at}.${field}`, 'must be a speed per second such as "400MB".');
      try {
        return parseStorageBandwidth(o[field] as string | number);
      } catch (error) {
        return j.fail(`${at}.${field}`, (error as Error).message);
      }
    };
    const read = speed('read');
    const write = speed('write');
    if (write !== undefined && read === undefined) j.fail(`${at}.write`, "needs read: state the device's read speed too.");
    return {
      id: j.name(o.id, `${at}.id`),
      label: j.string(o.label, `${at}.label`),
      ...(read ? { speeds: { read, write: write ?? read } } : {}),
      ...(o.source === undefined ? {} : { source: j.string(o.source, `${at}.source`) }),
    };
  });
  unique(
    j,
    list.map((s) => s.id),
    path,
    (id) => `the id "${id}"`,
  );
  return list;
}

function parsePublished(j: JsonFields, value: unknown): GemmTilingConfig['published'] {
  const published = j.object(value, '$.published');
  j.only(published, ['n', 'untiled', 'smallest'], '$.published');
  const figure = (o: Record<string, unknown>, field: string, path: string): number => {
    const v = o[field];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : j.fail(`${path}.${field}`, 'must be a number > 0.');
  };
  const untiled = j.object(published.untiled, '$.published.untiled');
  const smallest = j.object(published.smallest, '$.published.smallest');
  j.only(untiled, ['peakMB', 'seconds'], '$.published.untiled');
  j.only(smallest, ['tile', 'budgetMB', 'peakMB', 'seconds'], '$.published.smallest');
  const u = '$.published.untiled';
  const s = '$.published.smallest';
  return {
    n: j.integer(published.n, '$.published.n', 1),
    untiled: { peakMB: figure(untiled, 'peakMB', u), seconds: figure(untiled, 'seconds', u) },
    smallest: { tile: figure(smallest, 'tile', s), budgetMB: figure(smallest, 'budgetMB', s), peakMB: figure(smallest, 'peakMB', s), seconds: figure(smallest, 'seconds', s) },
  };
}
