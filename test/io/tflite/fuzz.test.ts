import { describe, expect, it } from 'vitest';
import { GraphError } from '../../../src/graph/ir.ts';
import { InputError } from '../../../src/io/input-error.ts';
import { readTflite } from '../../../src/io/tflite/read-tflite.ts';
import { mulberry32 } from '../../../src/core/synthetic.ts';
import { readReferenceModel, REFERENCE_MODELS, referenceModelsPresent } from './reference-models.ts';
import { everyOpModel } from './test-models.ts';
import { buildTflite } from './tflite-builder.ts';

const seeded = mulberry32;

/** Reads `bytes`; anything but a Graph, an InputError or a GraphError fails the test. */
function outcome(bytes: Uint8Array, file: string, label: string): 'graph' | 'InputError' | 'GraphError' {
  try {
    readTflite(bytes, file);
    return 'graph';
  } catch (error) {
    const ok = error instanceof InputError || error instanceof GraphError;
    expect(ok, `${label}: ${(error as Error)?.stack ?? String(error)}`).toBe(true);
    expect((error as Error).message, label).not.toContain('\n');
    expect((error as Error).message.startsWith(`${file}: `), label).toBe(true);
    return error instanceof InputError ? 'InputError' : 'GraphError';
  }
}

/** The bytes of a model that are not weights: where tables, vtables, offsets and vectors live. */
function structuralPositions(bytes: Uint8Array, file: string): number[] {
  const weights = new Uint8Array(bytes.length);
  for (const tensor of readTflite(bytes, file).tensors.values()) {
    if (tensor.data === undefined || tensor.data.buffer !== bytes.buffer) continue;
    const start = tensor.data.byteOffset - bytes.byteOffset;
    weights.fill(1, start, start + tensor.data.byteLength);
  }
  const positions: number[] = [];
  weights.forEach((isWeight, at) => {
    if (!isWeight) positions.push(at);
  });
  return positions;
}

const WORDS = [0, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];

/**
 * One corrupted copy: a truncation (one case in five), else one to four edits at random
 * positions, mostly outside the weights: a flipped bit, an overwritten byte, or an
 * overwritten 32-bit word (extreme or random values, to hit offsets and lengths).
 */
function corrupt(original: Uint8Array, structural: readonly number[], random: () => number): { bytes: Uint8Array; label: string } {
  if (random() < 0.2) {
    const length = Math.floor(random() * original.length);
    return { bytes: original.slice(0, length), label: `truncated to ${length} bytes` };
  }
  const bytes = original.slice();
  const edits: string[] = [];
  const count = 1 + Math.floor(random() * 4);
  for (let k = 0; k < count; k++) {
    const at = random() < 0.85 ? structural[Math.floor(random() * structural.length)] : Math.floor(random() * bytes.length);
    const kind = random();
    if (kind < 0.4) {
      const bit = Math.floor(random() * 8);
      bytes[at] ^= 1 << bit;
      edits.push(`bit ${bit} of byte ${at} flipped`);
    } else if (kind < 0.7) {
      bytes[at] = Math.floor(random() * 256);
      edits.push(`byte ${at} = ${bytes[at]}`);
    } else {
      const word = random() < 0.6 ? WORDS[Math.floor(random() * WORDS.length)] : Math.floor(random() * 2 ** 32);
      for (let b = 0; b < 4 && at + b < bytes.length; b++) bytes[at + b] = (word >>> (8 * b)) & 0xff;
      edits.push(`word at ${at} = ${word}`);
    }
  }
  return { bytes, label: edits.join(', ') };
}

describe.skipIf(!referenceModelsPresent())('readTflite on corrupted reference models', () => {
  REFERENCE_MODELS.forEach((model, index) => {
    it(`${model}: 200 truncations and edits give a Graph, an InputError or a GraphError`, { timeout: 30_000 }, () => {
      const original = readReferenceModel(model);
      const structural = structuralPositions(original, model);
      const random = seeded(20_240 + index);
      const counts = { graph: 0, InputError: 0, GraphError: 0 };
      for (let k = 0; k < 200; k++) {
        const { bytes, label } = corrupt(original, structural, random);
        counts[outcome(bytes, model, `case ${k} (${label})`)]++;
      }
      // The cases reach past the header: some are read in full, some fail on the graph.
      expect(counts.InputError).toBeGreaterThan(0);
      expect(counts.GraphError).toBeGreaterThan(0);
      expect(counts.graph).toBeGreaterThan(0);
    });
  });
});

describe('readTflite on a corrupted hand-made model', () => {
  it('every byte of a model with every mapped op, changed in turn, gives a Graph, an InputError or a GraphError', { timeout: 30_000 }, () => {
    const original = buildTflite(everyOpModel());
    const random = seeded(7);
    const counts = { graph: 0, InputError: 0, GraphError: 0 };
    for (let at = 0; at < original.length; at++) {
      const bytes = original.slice();
      const mask = 1 + Math.floor(random() * 255);
      bytes[at] ^= mask;
      counts[outcome(bytes, 'every-op.tflite', `byte ${at} ^= ${mask}`)]++;
    }
    expect(counts.InputError).toBeGreaterThan(0);
    expect(counts.GraphError).toBeGreaterThan(0);
    expect(counts.graph).toBeGreaterThan(0);
  });
});
