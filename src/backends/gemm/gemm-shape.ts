/**
 * Out-of-core GEMM (Jo, Lee and Shin; BLAS-on-flash): C = A B with n x n matrices split
 * into square tiles of `tile` floats a side; C(i, j) accumulates A(i, l) B(l, j) over l.
 * A task is one such product; tasks of one C tile run in l order (the summation order, so
 * every schedule computes the same bits).
 */
export interface GemmShape {
  readonly n: number;
  readonly tile: number;
  /** Tiles per side: n / tile. */
  readonly tiles: number;
  readonly tileBytes: number;
}

export class GemmShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GemmShapeError';
  }
}

/** A shape, checked: tile a multiple of 32 (the SIMD kernel's blocks) that divides n. */
export function gemmShape(n: number, tile: number): GemmShape {
  if (!Number.isSafeInteger(n) || n < 32) throw new GemmShapeError(`n must be a whole number >= 32, got ${n}.`);
  if (!Number.isSafeInteger(tile) || tile < 32 || tile % 32 !== 0) throw new GemmShapeError(`the tile must be a multiple of 32 floats, got ${tile}.`);
  if (n % tile !== 0) throw new GemmShapeError(`the tile (${tile}) must divide n (${n}).`);
  return { n, tile, tiles: n / tile, tileBytes: tile * tile * 4 };
}

export type Matrix = 'A' | 'B' | 'C';

/** A tile of a matrix: row block r, column block c. */
export interface TileId {
  readonly matrix: Matrix;
  readonly r: number;
  readonly c: number;
}

export function tileKey(t: TileId): string {
  return `${t.matrix}${t.r},${t.c}`;
}

/** C(i, j) += A(i, l) B(l, j). */
export interface GemmTask {
  readonly i: number;
  readonly j: number;
  readonly l: number;
}

export function taskTiles(task: GemmTask): { a: TileId; b: TileId; c: TileId } {
  return { a: { matrix: 'A', r: task.i, c: task.l }, b: { matrix: 'B', r: task.l, c: task.j }, c: { matrix: 'C', r: task.i, c: task.j } };
}

/** The tasks in row-major order of C, each C tile's tasks in l order. */
export function rowMajorTasks(shape: GemmShape): GemmTask[] {
  const tasks: GemmTask[] = [];
  for (let i = 0; i < shape.tiles; i++) for (let j = 0; j < shape.tiles; j++) for (let l = 0; l < shape.tiles; l++) tasks.push({ i, j, l });
  return tasks;
}

/** Floating-point operations of the whole product. */
export function gemmFlops(shape: GemmShape): number {
  return 2 * shape.n ** 3;
}
