import { F32, FunctionBuilder, I32, V128 } from './encoder.ts';

/**
 * dw3x3(in, out, rows, cols, inRowStep, inColStep, tapY, tapX, outRowStep, pixel, c4, c, w,
 * bias, lo, hi), addresses and steps in bytes: a rectangle of output pixels of a 3x3
 * depthwise convolution with multiplier 1 whose windows lie inside the input (NHWC).
 * `in` is the first window's top-left tap (channel 0); consecutive output rows / columns
 * move the window by inRowStep / inColStep; taps are tapY / tapX apart; `out` is the first
 * output pixel, rows outRowStep apart, pixels (and channel runs) `pixel` bytes apart.
 * Channels [0, c4) go 4 at a time with the 9 weights in registers, the rest one by one.
 * Weights [9][c], bias [c]. With `fused`, the vector multiply-adds are relaxed_madd (relaxed
 * SIMD). Requires rows, cols >= 1.
 */
export function depthwiseFunction(fused: boolean): FunctionBuilder {
  const f = new FunctionBuilder('dw3x3', [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32]);
  const [input, output, rows, cols, inRowStep, inColStep, tapY, tapX, outRowStep, pixel, c4, c, w, bias, lo, hi] = Array.from({ length: 16 }, (_, i) => f.param(i));
  const vlo = f.local(V128);
  const vhi = f.local(V128);
  const row = f.local(I32);
  const inRow = f.local(I32);
  const outRow = f.local(I32);
  const cb = f.local(I32);
  const cBytes = f.local(I32);
  const c4Bytes = f.local(I32);
  const ip = f.local(I32);
  const op = f.local(I32);
  const opEnd = f.local(I32);
  const p = f.local(I32);
  const tapX2 = f.local(I32);
  const wv = Array.from({ length: 9 }, () => f.local(V128));
  const bv = f.local(V128);
  const rowSums = [f.local(V128), f.local(V128), f.local(V128)];
  const ws = Array.from({ length: 9 }, () => f.local(F32));
  const bs = f.local(F32);
  const as = f.local(F32);
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  f.get(c).i32(4).mul().set(cBytes);
  f.get(c4).i32(4).mul().set(c4Bytes);
  f.get(tapX).get(tapX).add().set(tapX2);
  f.i32(0).set(row);
  f.countUp(row, rows, 1, () => {
    f.get(input).get(row).get(inRowStep).mul().add().set(inRow);
    f.get(output).get(row).get(outRowStep).mul().add().set(outRow);
    f.i32(0).set(cb);
    for (const vectorized of [true, false]) f.countUp(cb, vectorized ? c4Bytes : cBytes, vectorized ? 16 : 4, () => channels(vectorized));
  });
  return f;

  /** The rectangle's pixels for the channels at byte offset cb (4 of them, or one). */
  function channels(vectorized: boolean): void {
    const weights = vectorized ? wv : ws;
    // The channel run's 9 weights and bias.
    f.get(w).get(cb).add().set(p);
    for (let j = 0; j < 9; j++) {
      f.get(p).load(vectorized).set(weights[j]);
      if (j < 8) f.get(p).get(cBytes).add().set(p);
    }
    f.get(bias)
      .get(cb)
      .add()
      .load(vectorized)
      .set(vectorized ? bv : bs);
    f.get(inRow).get(cb).add().set(ip);
    f.get(outRow).get(cb).add().tee(op).get(cols).get(pixel).mul().add().set(opEnd);
    f.loop();
    if (vectorized) vectorPixel();
    else {
      // One channel's pixel: one chain from the bias.
      f.get(bs).set(as);
      eachTap(false, (_ky, _kx, tap) => {
        f.get(as);
        tap();
        f.f32Mul().f32Add().set(as);
      });
      f.get(op).get(as).clampTo(false, lo, hi).store(false);
    }
    f.get(ip).get(inColStep).add().set(ip);
    f.get(op).get(pixel).add().tee(op).get(opEnd).ltU().brIf(0);
    f.end();
  }

  /**
   * The 9 taps of the window at ip, row by row (p at each tap row's first tap): `use` emits
   * what tap (ky, kx) adds, given `tap`, which pushes its input value and its weight.
   */
  function eachTap(vectorized: boolean, use: (ky: number, kx: number, tap: () => void) => void): void {
    const weights = vectorized ? wv : ws;
    for (let ky = 0; ky < 3; ky++) {
      if (ky === 0) f.get(ip).set(p);
      else f.get(p).get(tapY).add().set(p);
      for (let kx = 0; kx < 3; kx++) {
        use(ky, kx, () => {
          f.get(p);
          if (kx > 0) f.get(kx === 1 ? tapX : tapX2).add();
          f.load(vectorized).get(weights[ky * 3 + kx]);
        });
      }
    }
  }

  /**
   * One output pixel's 4 channels: each tap row summed into an accumulator of its own (the
   * first from the bias), then the three added. Three short chains of multiply-adds instead
   * of one of nine: a multiply-add waits for the one before it in its chain (measured on
   * 112x112x32: 501-518 to 383 us).
   */
  function vectorPixel(): void {
    eachTap(true, (ky, kx, tap) => {
      if (ky > 0 && kx === 0) {
        tap();
        f.f32x4Mul().set(rowSums[ky]);
        return;
      }
      if (ky === 0 && kx === 0) f.get(bv).set(rowSums[0]);
      f.mulAddInto(rowSums[ky], fused, tap);
    });
    f.get(op).get(rowSums[0]).get(rowSums[1]).f32x4Add().get(rowSums[2]).f32x4Add().clampTo(true, vlo, vhi).v128Store();
  }
}
