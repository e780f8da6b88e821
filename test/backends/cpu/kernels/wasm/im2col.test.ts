import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillColumnsNhwc } from '../../../../../src/backends/cpu/kernels/conv.ts';
import { sharedMemory, simdEngineOn } from '../../../../../src/backends/cpu/kernels/wasm/engine.ts';
import type { ConvGeometry } from '../../../../../src/graph/window-geometry.ts';
import { randomArray, rng } from '../helpers.ts';

describe('the im2col kernel', () => {
  it('writes, for any band of output pixels of any group, the very rows the TypeScript fillColumnsNhwc writes (fast-check)', () => {
    const small = fc.integer({ min: 1, max: 4 });
    // Channels a group: few (taps of under 16 bytes), and enough that a window row is a run of 256 bytes or more (copied by memory.copy, shorter runs move inline).
    const channels = fc.oneof(small, fc.integer({ min: 5, max: 40 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 7 }),
        channels,
        fc.integer({ min: 1, max: 3 }),
        small,
        small,
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 2 }),
        fc.nat(2),
        fc.nat(2),
        fc.nat(),
        (n, h, w, cg, groups, kh, kw, sh, sw, dh, dw, pt, pl, seed) => {
          const c = cg * groups;
          const oh = Math.floor((h + 2 * pt - dh * (kh - 1) - 1) / sh) + 1;
          const ow = Math.floor((w + 2 * pl - dw * (kw - 1) - 1) / sw) + 1;
          fc.pre(oh >= 1 && ow >= 1);
          const g: ConvGeometry = { n, h, w, c, oh, ow, o: groups, kh, kw, sh, sw, dh, dw, pt, pl, groups, cg, og: 1 };
          const random = rng(seed);
          const x = randomArray(n * h * w * c, random);
          const pixels = n * oh * ow;
          const p0 = seed % pixels;
          const rows = 1 + ((seed >>> 8) % (pixels - p0));
          const group = (seed >>> 4) % groups;
          const k = kh * kw * cg;
          const want = new Float32Array(rows * k);
          fillColumnsNhwc(x, g, group * cg, p0, rows, want, 0);
          const memory = sharedMemory(Math.ceil(((x.length + want.length) * 4 + 512) / 65536));
          const engine = simdEngineOn(memory!)!;
          const heap = engine.heap();
          const [xAt, colAt] = [16, 16 + Math.ceil(x.length / 4) * 4];
          heap.set(x, xAt);
          // NaN over the band and 8 floats past it: the rows are written, nothing after them.
          heap.fill(Number.NaN, colAt, colAt + want.length + 8);
          engine.im2col(xAt + group * cg, g, p0, rows, colAt);
          expect(heap.subarray(colAt, colAt + want.length)).toEqual(want);
          expect([...heap.subarray(colAt + want.length, colAt + want.length + 8)].every(Number.isNaN)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
