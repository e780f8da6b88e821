import { FunctionBuilder, I32, V128, encodeModule } from './encoder.ts';
import { panelProducts } from './gemm.ts';
import { relaxedSimd } from './relaxed-simd.ts';
import { wasmApi, type WasmMemory } from './wasm-api.ts';

/**
 * The matrix product of out-of-core GEMM, in WebAssembly SIMD on a memory the caller owns:
 * tiles are read from storage straight into that memory and multiplied where they lie,
 * with nothing copied in or out (the engine of engine.ts stages operands into its own
 * memory instead).
 *
 * gemmacc(a, lda, m, b, bstride, k, n, c, ldc, accumulate), addresses and strides in bytes:
 *   C[i, j] (+)= sum_kk A[i, kk] * B[kk, j]      i < m, j < n, kk < k
 * A row-major (row stride lda), B packed in panels of 8 columns as gemm.ts packs it (panel
 * p at b + p*bstride, its row kk at + kk*32: a block of rows of a packed tile is a packed
 * operand with the tile's panel stride), C row-major (row stride ldc); with `accumulate` 0,
 * C is overwritten.
 * A 4x8 block of C stays in 8 f32x4 accumulators over the whole of k (2 loads of B and 4
 * broadcasts of A per 32 multiply-adds), as in gemm.ts, fused with relaxed SIMD where the
 * runtime has it (relaxed-simd.ts). Requires m % 4 = 0,
 * n % 8 = 0 and k >= 1 (tiles are multiples of 32).
 */
function gemmAccumulateFunction(fused: boolean): FunctionBuilder {
  const f = new FunctionBuilder('gemmacc', [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [a, lda, m, b, bstride, k, n, c, ldc, accumulate] = Array.from({ length: 10 }, (_, i) => f.param(i));
  const row = f.local(I32);
  const panel = f.local(I32);
  const panels = f.local(I32);
  const pb = f.local(I32);
  const end = f.local(I32);
  const cp = f.local(I32);
  const q = f.local(I32);
  const rows = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const cursors = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const acc = Array.from({ length: 8 }, () => f.local(V128));
  const zero = f.local(V128); // never set: all zeros
  const w0 = f.local(V128);
  const w1 = f.local(V128);
  const x = f.local(V128);
  f.get(n).i32(3).shrU().set(panels);
  f.i32(0).set(row);
  f.block().loop();
  f.get(row).get(m).geU().brIf(1);
  f.get(a).get(row).get(lda).mul().add().set(rows[0]);
  for (let i = 1; i < 4; i++)
    f.get(rows[i - 1])
      .get(lda)
      .add()
      .set(rows[i]);
  f.i32(0).set(panel);
  f.block().loop();
  f.get(panel).get(panels).geU().brIf(1);
  // cp = c + row*ldc + panel*32: the block's first row in C.
  f.get(c).get(row).get(ldc).mul().add().get(panel).i32(32).mul().add().set(cp);
  f.get(accumulate).if();
  f.get(cp).set(q);
  for (let i = 0; i < 4; i++) {
    f.get(q)
      .v128Load(0)
      .set(acc[2 * i]);
    f.get(q)
      .v128Load(16)
      .set(acc[2 * i + 1]);
    if (i < 3) f.get(q).get(ldc).add().set(q);
  }
  f.else();
  for (let i = 0; i < 8; i++) f.get(zero).set(acc[i]);
  f.end();
  // pb = b + panel*bstride, end = pb + k*32.
  f.get(b).get(panel).get(bstride).mul().add().tee(pb).get(k).i32(32).mul().add().set(end);
  for (let i = 0; i < 4; i++) f.get(rows[i]).set(cursors[i]);
  panelProducts(f, { pb, end, cursors, acc, w0, w1, x }, 4, fused);
  f.get(cp).set(q);
  for (let i = 0; i < 4; i++) {
    f.get(q)
      .get(acc[2 * i])
      .v128Store(0);
    f.get(q)
      .get(acc[2 * i + 1])
      .v128Store(16);
    if (i < 3) f.get(q).get(ldc).add().set(q);
  }
  f.get(panel).i32(1).add().set(panel).br(0);
  f.end().end();
  f.get(row).i32(4).add().set(row).br(0);
  f.end().end();
  return f;
}

type GemmAccExport = (a: number, lda: number, m: number, b: number, bstride: number, k: number, n: number, c: number, ldc: number, accumulate: number) => void;

/** A memory of at least `bytes` (whole pages), never grown: its views stay valid. */
export function pageAlignedMemory(bytes: number): WasmMemory {
  const wasm = wasmApi();
  if (wasm === undefined) throw new Error('this runtime has no WebAssembly.');
  const pages = Math.max(1, Math.ceil(bytes / 65536));
  return new wasm.Memory({ initial: pages, maximum: pages });
}

/** Rows and columns of B per block (a 256 x 256 block of floats: 256 KiB, in L2). */
const KC = 256;
const NC = 256;

/** The compiled kernel, plain and fused. */
const compiled = new Map<boolean, object | null>();

/** Whether this runtime has WebAssembly SIMD (the tile kernel needs it). */
export function tileGemmAvailable(): boolean {
  return tileModule() !== null;
}

function tileModule(): object | null {
  const fused = relaxedSimd();
  let module = compiled.get(fused);
  if (module === undefined) {
    const wasm = wasmApi();
    const bytes = encodeModule([gemmAccumulateFunction(fused)]);
    module = wasm !== undefined && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
    compiled.set(fused, module);
  }
  return module;
}

/**
 * The kernel bound to `memory` (a WebAssembly.Memory the caller allocated): offsets in
 * bytes into it. Throws where WebAssembly SIMD is missing.
 */
export function tileGemmOn(memory: WasmMemory): { gemm(a: number, b: number, c: number, tile: number, accumulate: boolean): void } {
  const module = tileModule();
  if (module === null) throw new Error('this runtime has no WebAssembly SIMD, which the out-of-core GEMM kernel needs.');
  const wasm = wasmApi()!;
  const instance = new wasm.Instance(module, { env: { memory } });
  const gemmacc = instance.exports.gemmacc as GemmAccExport;
  return {
    /**
     * C (+)= A * B for square tiles of `tile` floats a side: A and C row-major, B packed.
     * Blocked for the caches: KC rows of B at a time (so every product adds into C) and NC
     * of its columns, a block of B that stays in L2 while every row of A streams past it.
     */
    gemm(a, b, c, tile, accumulate) {
      if (tile % 32 !== 0) throw new RangeError(`tile ${tile} is not a multiple of 32.`);
      const row = tile * 4;
      const bstride = tile * 32;
      for (let k0 = 0; k0 < tile; k0 += KC) {
        const k = Math.min(KC, tile - k0);
        for (let n0 = 0; n0 < tile; n0 += NC) {
          const n = Math.min(NC, tile - n0);
          gemmacc(a + k0 * 4, row, tile, b + (n0 / 8) * bstride + k0 * 32, bstride, k, n, c + n0 * 4, row, accumulate || k0 > 0 ? 1 : 0);
        }
      }
    },
  };
}
