import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph, Tensor } from '../../graph/ir.ts';

/**
 * A graph's own weights on their way to a measured process: written to a file by the harness,
 * one constant after the other (float32), and read by the process after its baseline, a run
 * at a time, straight into the executor's copy (Backend.writesWeights) as seeded weights are
 * made there. Sent as messages instead, their values arrived before the baseline and were let
 * go as the executor wrote its own: the measured peak then left out most of the weights.
 */
export interface ConstantsFile {
  readonly path: string;
  /** Each constant's name and element count, in the file's order. */
  readonly entries: readonly (readonly [name: string, count: number])[];
}

/** Floats read at once: 256 KiB, whatever the constant's size (as seeded weights are handed over). */
const CHUNK = 65536;

/** Writes every float32 constant with values of `graph` into `dir`/constants.f32. */
export function writeConstantsFile(graph: Graph, dir: string): ConstantsFile {
  const path = join(dir, 'constants.f32');
  const entries: [string, number][] = [];
  const fd = openSync(path, 'w');
  try {
    for (const [name, tensor] of graph.tensors) {
      if (!tensor.constant || !(tensor.data instanceof Float32Array)) continue;
      const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      entries.push([name, tensor.data.length]);
    }
  } finally {
    closeSync(fd);
  }
  return { path, entries };
}

/** Hands every constant of the file to `sink` in runs of at most CHUNK values (a WeightStream). */
export function streamConstantsFile(file: ConstantsFile, sink: (name: string, values: Float32Array, at: number) => void): void {
  const buffer = new Float32Array(CHUNK);
  const bytes = new Uint8Array(buffer.buffer);
  const fd = openSync(file.path, 'r');
  try {
    let position = 0;
    for (const [name, count] of file.entries) {
      for (let at = 0; at < count; at += CHUNK) {
        const length = Math.min(CHUNK, count - at) * 4;
        for (let read = 0; read < length; ) {
          const got = readSync(fd, bytes, read, length - read, position + read);
          if (got === 0) throw new Error(`${file.path} ends before constant ${name}'s values do.`);
          read += got;
        }
        position += length;
        sink(name, buffer.subarray(0, length / 4), at);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The graph with the file's values in its constants (a backend that takes them from the graph). */
export function withConstantsFile(graph: Graph, file: ConstantsFile): Graph {
  const tensors = new Map(graph.tensors);
  for (const [name, count] of file.entries) tensors.set(name, { ...(tensors.get(name) as Tensor), dtype: 'float32', data: new Float32Array(count) });
  streamConstantsFile(file, (name, values, at) => (tensors.get(name)?.data as Float32Array).set(values, at));
  return { ...graph, tensors };
}
