import { F32, FunctionBuilder, I32, V128, type Local } from './encoder.ts';

/** TFLite's "lowest float": what a max pool writes for a window without a valid pixel (here and in ../pool.ts). */
export const LOWEST_FLOAT = -3.4028234663852886e38;

/**
 * maxpool / avgpool(x, out, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl), addresses in bytes:
 * the pooling of kernels/pool.ts over one NHWC image (h x w x c in, oh x ow x c out), window
 * kh x kw, strides sh, sw, padding pt, pl before. Padded positions take no part: a max is
 * over the window's valid pixels, an average divides by their count (float32: the sum
 * accumulates and is scaled in float32, where the TypeScript loop uses float64). A window
 * without a valid pixel gives the lowest float (max) or 0 (average). Per output pixel the
 * valid window is clamped once; channels go 16 at a time (four f32x4 accumulators in
 * registers over the window's taps: four independent chains, one walk of the window), then
 * 4 at a time, the rest one by one. Each channel's taps are taken in the same order at every
 * width, so the width changes no result.
 */
export function poolFunction(isMax: boolean): FunctionBuilder {
  const f = new FunctionBuilder(
    isMax ? 'maxpool' : 'avgpool',
    Array.from({ length: 13 }, () => I32),
  );
  const [x, out, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl] = Array.from({ length: 13 }, (_, i) => f.param(i));
  const pix = f.local(I32);
  const rowBytes = f.local(I32);
  const c4Bytes = f.local(I32);
  const oy = f.local(I32);
  const ox = f.local(I32);
  const start = f.local(I32);
  const y0 = f.local(I32);
  const y1 = f.local(I32);
  const x0 = f.local(I32);
  const x1 = f.local(I32);
  const count = f.local(I32);
  const win = f.local(I32);
  const spanBytes = f.local(I32);
  const tapsBytes = f.local(I32);
  const op = f.local(I32);
  const cb = f.local(I32);
  const rp = f.local(I32);
  const rEnd = f.local(I32);
  const p = f.local(I32);
  const pEnd = f.local(I32);
  const c16Bytes = f.local(I32);
  const scale = f.local(F32);
  const vaccs = [f.local(V128), f.local(V128), f.local(V128), f.local(V128)];
  const sacc = f.local(F32);

  /** Sets lo = max(start, 0) and hi = min(start + k, size) (signed). */
  const clampWindow = (lo: Local, hi: Local, k: Local, size: Local): void => {
    f.get(start).i32(0).get(start).i32(0).gtS().select().set(lo);
    f.get(start).get(k).add().tee(hi).get(size).get(hi).get(size).ltS().select().set(hi);
  };

  f.get(c).i32(4).mul().set(pix);
  f.get(w).get(pix).mul().set(rowBytes);
  f.get(c).i32(-4).and().i32(4).mul().set(c4Bytes);
  f.get(c).i32(-16).and().i32(4).mul().set(c16Bytes);
  f.get(out).set(op);
  f.i32(0).set(oy);
  f.countUp(oy, oh, 1, () => {
    f.get(oy).get(sh).mul().get(pt).sub().set(start);
    clampWindow(y0, y1, kh, h);
    f.i32(0).set(ox);
    f.countUp(ox, ow, 1, () => {
      f.get(ox).get(sw).mul().get(pl).sub().set(start);
      clampWindow(x0, x1, kw, w);
      // count = valid taps, 0 where either range is empty (both empty would multiply to a positive).
      f.get(y1).get(y0).sub().get(x1).get(x0).sub().mul().i32(0);
      f.get(y0).get(y1).ltS().get(x0).get(x1).ltS().and().select().set(count);
      f.get(x).get(y0).get(rowBytes).mul().add().get(x0).get(pix).mul().add().set(win);
      f.get(y1).get(y0).sub().get(rowBytes).mul().set(spanBytes);
      f.get(x1).get(x0).sub().get(pix).mul().set(tapsBytes);
      if (!isMax) {
        // 1 / count, and 0 for an empty window (whose sum stays 0).
        f.f32(1).get(count).f32ConvertI32S().f32Div().f32(0).get(count).i32(0).gtS().select().set(scale);
      }
      f.i32(0).set(cb);
      f.countUp(cb, c16Bytes, 64, () => channels(4));
      f.countUp(cb, c4Bytes, 16, () => channels(1));
      f.countUp(cb, pix, 4, () => channels(0));
      f.get(op).get(pix).add().set(op);
    });
  });
  return f;

  /** The window's taps for the channels at byte offset cb into out: `vectors` f32x4 of them (4 or 1), or one float (0). */
  function channels(vectors: number): void {
    const vectorized = vectors > 0;
    const accs = vectorized ? vaccs.slice(0, vectors) : [sacc];
    const combine = (): void => {
      if (vectorized) {
        // acc < tap ? tap : acc, as kernels/pool.ts takes a larger value (pmax: one maxps, where f32x4.max is eight instructions).
        if (isMax) f.f32x4Pmax();
        else f.f32x4Add();
      } else if (isMax) f.f32Max();
      else f.f32Add();
    };
    const splat = (value: number): void => {
      f.f32(value);
      if (vectorized) f.f32x4Splat();
    };
    f.get(count).i32(0).gtS().if();
    accs.forEach((acc, k) => {
      if (isMax)
        f.get(win)
          .get(cb)
          .add()
          .load(vectorized, 16 * k)
          .set(acc);
      else {
        splat(0);
        f.set(acc);
      }
    });
    f.get(win).get(cb).add().tee(rp).get(spanBytes).add().set(rEnd);
    // Every row of the window, every tap of a row (at least one each: count > 0).
    f.loop();
    f.get(rp).tee(p).get(tapsBytes).add().set(pEnd);
    f.loop();
    accs.forEach((acc, k) => {
      f.get(acc)
        .get(p)
        .load(vectorized, 16 * k);
      combine();
      f.set(acc);
    });
    f.get(p).get(pix).add().tee(p).get(pEnd).ltU().brIf(0);
    f.end();
    f.get(rp).get(rowBytes).add().tee(rp).get(rEnd).ltU().brIf(0);
    f.end();
    if (!isMax) {
      for (const acc of accs) {
        f.get(acc).get(scale);
        if (vectorized) f.f32x4Splat().f32x4Mul();
        else f.f32Mul();
        f.set(acc);
      }
    }
    f.else();
    for (const acc of accs) {
      splat(isMax ? LOWEST_FLOAT : 0);
      f.set(acc);
    }
    f.end();
    accs.forEach((acc, k) =>
      f
        .get(op)
        .get(cb)
        .add()
        .get(acc)
        .store(vectorized, 16 * k),
    );
  }
}
