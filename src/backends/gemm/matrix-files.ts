import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { packB } from '../cpu/kernels/gemm.ts';
import { pageAlignedMemory } from '../cpu/kernels/wasm/tile-gemm.ts';
import type { GemmShape, Matrix, TileId } from './gemm-shape.ts';
import { withPath } from '../../io/file-system-error.ts';
import { makeFolder } from '../../io/make-folder.ts';

/**
 * The matrices as files, tile-major: tile (r, c) is one contiguous run of tileBytes at
 * (r * tiles + c) * tileBytes, so that a tile is one read. A and C tiles are row-major;
 * B tiles are stored packed in panels of 8 columns (the kernel's B operand), so the
 * kernel reads them where they land. Element values come from a hash of (seed, matrix,
 * row, column): any entry can be recomputed alone to check C.
 */

/** A[row][col] or B[row][col] of the seeded inputs, uniform in [-1, 1). */
export function element(seed: number, matrix: 'A' | 'B', row: number, col: number): number {
  // A 32-bit mix (murmur3's finalizer) of the seed, the matrix and the position; exact in
  // float32 (multiples of 2^-23).
  let h = (Math.imul(seed ^ (matrix === 'A' ? 0x6a09e667 : 0xbb67ae85), 0x9e3779b1) ^ Math.imul(row, 0x85ebca6b) ^ Math.imul(col + 0x165667b1, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return ((h >>> 8) / 2 ** 24) * 2 - 1;
}

export function tileOffset(shape: GemmShape, tile: TileId): number {
  return (tile.r * shape.tiles + tile.c) * shape.tileBytes;
}

export function matrixPath(dir: string, matrix: Matrix): string {
  return join(dir, `${matrix}.tiles`);
}

/** Opens a matrix file; with `direct`, bypassing the page cache (O_DIRECT: aligned buffers, offsets and lengths). */
export async function openMatrix(dir: string, matrix: Matrix, mode: 'read' | 'write', direct: boolean): Promise<FileHandle> {
  const flags = (mode === 'read' ? constants.O_RDONLY : constants.O_RDWR | constants.O_CREAT) | (direct ? constants.O_DIRECT : 0);
  return open(matrixPath(dir, matrix), flags, 0o644);
}

/**
 * Whether this file system takes O_DIRECT (Linux; not tmpfs): a test file opened and read
 * through an aligned buffer (a WebAssembly memory, page-aligned).
 */
export async function directIoWorks(dir: string): Promise<boolean> {
  if (constants.O_DIRECT === undefined) return false;
  const probe = join(dir, '.direct-io-probe');
  try {
    await makeFolder(dir);
    const writer = await open(probe, 'w');
    await writer.write(new Uint8Array(4096));
    await writer.close();
    const handle = await open(probe, constants.O_RDONLY | constants.O_DIRECT);
    try {
      const memory = pageAlignedMemory(4096);
      await handle.read(new Uint8Array(memory.buffer, 0, 4096), 0, 4096, 0);
      return true;
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
  }
}

/**
 * Writes A and B (seeded) tile by tile, and an empty C of the full size. Buffered writes:
 * the inputs are made once, before anything is measured.
 */
export async function writeInputs(dir: string, shape: GemmShape, seed: number): Promise<void> {
  await makeFolder(dir);
  const { tile, tiles, tileBytes } = shape;
  const values = new Float32Array(tile * tile);
  for (const matrix of ['A', 'B'] as const) {
    const handle = await open(matrixPath(dir, matrix), 'w');
    try {
      for (let r = 0; r < tiles; r++) {
        for (let c = 0; c < tiles; c++) {
          for (let y = 0; y < tile; y++) for (let x = 0; x < tile; x++) values[y * tile + x] = element(seed, matrix, r * tile + y, c * tile + x);
          const data = matrix === 'A' ? values : packB(values, 0, tile, tile, tile, 1).data;
          await handle.write(new Uint8Array(data.buffer, data.byteOffset, tileBytes), 0, tileBytes, tileOffset(shape, { matrix, r, c }));
        }
      }
    } catch (error) {
      throw withPath(error, matrixPath(dir, matrix));
    } finally {
      await handle.close();
    }
  }
  await emptyProduct(dir, shape);
}

/**
 * A C file of zeros, whatever was there: no tile of an earlier run survives into this one.
 * The zeros are written, not left as a hole (truncate): every block of C is on the disk
 * before the measured run, so a disk that fills up does so here, not in the middle of it.
 */
export async function emptyProduct(dir: string, shape: GemmShape): Promise<void> {
  const path = matrixPath(dir, 'C');
  const total = shape.tiles * shape.tiles * shape.tileBytes;
  const zeros = new Uint8Array(Math.min(total, 2 ** 20));
  const c = await open(path, 'w');
  try {
    for (let at = 0; at < total; at += zeros.length) await c.write(zeros, 0, Math.min(zeros.length, total - at), at);
  } catch (error) {
    throw withPath(error, path);
  } finally {
    await c.close();
  }
}

/** The bytes the three matrix files of `shape` take on the disk. */
export function matrixFilesBytes(shape: GemmShape): number {
  return 3 * shape.tiles * shape.tiles * shape.tileBytes;
}
