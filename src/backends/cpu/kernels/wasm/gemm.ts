import { F32, FunctionBuilder, I32, V128, type Local } from './encoder.ts';

/**
 * gemm(a, lda, m, b, k, n, bias, c, ldc, lo, hi, tmp), addresses and strides in bytes:
 *   C[i, j] = clamp(bias[j] + sum_kk A[i, kk] * B[kk, j], lo, hi)   i < m, j < n
 * A row-major (row stride lda); B packed in panels of 8 columns (panel p at b + p*k*32,
 * B[kk, 8p + q] at + kk*32 + q*4, zero past n); bias with panels*8 values (zero past n);
 * C row stride ldc, only its n columns written. Rows go 4 at a time (a 4x8 block of C in
 * 8 f32x4 accumulators: 2 loads of B and 4 broadcasts of A per 32 multiply-adds), then
 * one at a time. With `fused`, each multiply-add is one relaxed_madd (relaxed SIMD: one
 * instruction and one rounding on a CPU with FMA, near twice the plain kernel's rate).
 * Requires k >= 1. A last panel of nv < 8 columns is stored as a vector of 4 where nv >= 4
 * and lane by lane after (it went through `tmp`, 32 bytes of the engine's own, and a copy
 * loop: a product of 4096x24 by 24x28 took 254-259 us that way, 234 now; 1024x36 by 36x42
 * 133 us, 81-124 now). `tmp` is no longer read; the engines' temporary areas it names
 * stay until a change of the buffers' layout of its own removes them.
 */
export function gemmFunction(fused: boolean): FunctionBuilder {
  const f = new FunctionBuilder('gemm', [I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, I32]);
  // The twelfth parameter, tmp, is read by nothing (see above).
  const [a, lda, m, b, k, n, bias, c, ldc, lo, hi] = Array.from({ length: 11 }, (_, i) => f.param(i));
  const vlo = f.local(V128);
  const vhi = f.local(V128);
  const row = f.local(I32);
  const panels = f.local(I32);
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  f.get(n).i32(7).add().i32(3).shrU().set(panels);
  f.i32(0).set(row);
  const tile = rowTile(f, { a, lda, b, k, n, bias, c, ldc, vlo, vhi, row, panels }, fused);
  // Blocks of 4 rows while row + 4 <= m.
  f.block().loop();
  f.get(m).get(row).i32(4).add().ltU().brIf(1);
  tile(4);
  f.get(row).i32(4).add().set(row).br(0);
  f.end().end();
  // The remaining rows one by one.
  f.block().loop();
  f.get(row).get(m).geU().brIf(1);
  tile(1);
  f.get(row).i32(1).add().set(row).br(0);
  f.end().end();
  return f;
}

interface GemmLocals {
  a: Local;
  lda: Local;
  b: Local;
  k: Local;
  n: Local;
  bias: Local;
  c: Local;
  ldc: Local;
  vlo: Local;
  vhi: Local;
  row: Local;
  panels: Local;
}

/** Emits the code for `rows` rows (4 or 1) starting at `row`: every panel of 8 columns. */
function rowTile(f: FunctionBuilder, v: GemmLocals, fused: boolean): (rows: number) => void {
  const pointers = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const cursors = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const acc = Array.from({ length: 8 }, () => f.local(V128));
  const w0 = f.local(V128);
  const w1 = f.local(V128);
  const x = f.local(V128);
  const panel = f.local(I32);
  const pb = f.local(I32);
  const end = f.local(I32);
  const cp = f.local(I32);
  const nv = f.local(I32);
  const t = f.local(I32);
  const dst = f.local(I32);
  return (rows: number) => {
    // Row pointers into A.
    f.get(v.a).get(v.row).get(v.lda).mul().add().set(pointers[0]);
    for (let i = 1; i < rows; i++)
      f.get(pointers[i - 1])
        .get(v.lda)
        .add()
        .set(pointers[i]);
    f.i32(0).set(panel);
    f.block().loop();
    f.get(panel).get(v.panels).geU().brIf(1);
    // Accumulators start at the bias.
    f.get(v.bias).get(panel).i32(32).mul().add().tee(pb).v128Load(0).set(w0);
    f.get(pb).v128Load(16).set(w1);
    for (let i = 0; i < rows; i++)
      f.get(w0)
        .set(acc[2 * i])
        .get(w1)
        .set(acc[2 * i + 1]);
    // pb = b + panel*k*32, end = pb + k*32.
    f.get(v.b).get(panel).get(v.k).mul().i32(32).mul().add().tee(pb).get(v.k).i32(32).mul().add().set(end);
    for (let i = 0; i < rows; i++) f.get(pointers[i]).set(cursors[i]);
    panelProducts(f, { pb, end, cursors, acc, w0, w1, x }, rows, fused);
    // Store: cp = c + row*ldc + panel*32; nv = n - panel*8 columns left.
    f.get(v.c).get(v.row).get(v.ldc).mul().add().get(panel).i32(32).mul().add().set(cp);
    f.get(v.n).get(panel).i32(8).mul().sub().set(nv);
    f.get(nv).i32(8).geU().if();
    for (let i = 0; i < rows; i++) {
      f.get(cp)
        .get(acc[2 * i])
        .clampTo(true, v.vlo, v.vhi)
        .v128Store(0);
      f.get(cp)
        .get(acc[2 * i + 1])
        .clampTo(true, v.vlo, v.vhi)
        .v128Store(16);
      if (i + 1 < rows) f.get(cp).get(v.ldc).add().set(cp);
    }
    f.else();
    // The last panel's nv < 8 columns: its first 4 as one vector where nv >= 4, the rest lane by lane (t of them, at dst, from x).
    for (let i = 0; i < rows; i++) {
      f.get(acc[2 * i])
        .clampTo(true, v.vlo, v.vhi)
        .set(x);
      f.get(nv).i32(4).geU().if();
      f.get(cp).get(x).v128Store(0);
      f.get(acc[2 * i + 1])
        .clampTo(true, v.vlo, v.vhi)
        .set(x);
      f.get(cp).i32(16).add().set(dst).get(nv).i32(4).sub().set(t);
      f.else();
      f.get(cp).set(dst).get(nv).set(t);
      f.end();
      for (let lane = 0; lane < 3; lane++) {
        f.get(t).i32(lane).gtU().if();
        f.get(dst)
          .get(x)
          .f32x4ExtractLane(lane)
          .f32Store(lane * 4);
        f.end();
      }
      if (i + 1 < rows) f.get(cp).get(v.ldc).add().set(cp);
    }
    f.end();
    f.get(panel).i32(1).add().set(panel).br(0);
    f.end().end();
  };
}

/**
 * The inner loop of both GEMM kernels (this one and tile-gemm.ts): over a packed panel of
 * B from pb to end (32 bytes a row), `rows` rows of A at their cursors; per row of B, 2
 * loads of it and a broadcast of each row's value into 2 accumulators each (a rows x 8
 * block of C in acc[2i], acc[2i + 1]). Runs at least once (k >= 1).
 */
export function panelProducts(f: FunctionBuilder, v: { pb: Local; end: Local; cursors: readonly Local[]; acc: readonly Local[]; w0: Local; w1: Local; x: Local }, rows: number, fused: boolean): void {
  f.loop();
  f.get(v.pb).v128Load(0).set(v.w0);
  f.get(v.pb).v128Load(16).set(v.w1);
  for (let i = 0; i < rows; i++) {
    f.get(v.cursors[i]).loadSplat(0).set(v.x);
    f.mulAddInto(v.acc[2 * i], fused, () => f.get(v.x).get(v.w0));
    f.mulAddInto(v.acc[2 * i + 1], fused, () => f.get(v.x).get(v.w1));
    f.get(v.cursors[i]).i32(4).add().set(v.cursors[i]);
  }
  f.get(v.pb).i32(32).add().tee(v.pb).get(v.end).ltU().brIf(0);
  f.end();
}
