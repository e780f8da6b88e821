import { F32, FunctionBuilder, I32, type Local, V128 } from './encoder.ts';

/**
 * resize(x, out, h, w, c, ow, r0, r1, scaleY, scaleX, half), addresses in bytes: output rows
 * [r0, r1) of an NHWC bilinear resize of one image (kernels/resize.ts), h x w x c at x to
 * (r1 - r0) x ow x c at out. Each output row's and column's source position is TFLite's,
 * in float32 as kernels/resize.ts computes it: src = (o + 0.5) * scale - 0.5 with half-pixel
 * centres (half = 1), else o * scale; the lower pixel max(floor(src), 0), the upper
 * min(ceil(src), size - 1), weighted 1 - d and d = src - lower. The four products are
 * summed in the order of kernels/resize.ts, in float32 (it sums in float64). Channels 4 at
 * a time, then one by one.
 */
export function resizeFunction(): FunctionBuilder {
  const f = new FunctionBuilder('resize', [I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, I32]);
  const [x, out, h, w, c, ow, r0, r1, scaleY, scaleX, half] = Array.from({ length: 11 }, (_, i) => f.param(i));
  const oy = f.local(I32);
  const ox = f.local(I32);
  const cb = f.local(I32);
  const cBytes = f.local(I32);
  const c4Bytes = f.local(I32);
  const rowBytes = f.local(I32);
  const op = f.local(I32);
  const lower = f.local(I32);
  const upper = f.local(I32);
  const top = f.local(I32);
  const bottom = f.local(I32);
  const dy = f.local(F32);
  const dx = f.local(F32);
  const ws = Array.from({ length: 4 }, () => f.local(F32));
  const wv = Array.from({ length: 4 }, () => f.local(V128));
  const sources = Array.from({ length: 4 }, () => f.local(I32));

  /** lower, upper and d (the upper's weight) of output position o along an axis of `size` at `scale`. */
  const source = (o: Local, scale: Local, size: Local, d: Local): void => {
    const src = d;
    // src: (o + 0.5) * scale - 0.5 or o * scale, each step rounded to float32.
    f.get(o).f32ConvertI32S().get(half).f32ConvertI32S().f32(0.5).f32Mul().f32Add();
    f.get(scale).f32Mul();
    f.get(half).f32ConvertI32S().f32(0.5).f32Mul().f32Sub().set(src);
    f.get(src).f32Floor().i32TruncF32S().tee(lower).i32(0).get(lower).i32(0).gtS().select().set(lower);
    f.get(src).f32Ceil().i32TruncF32S().tee(upper).get(size).i32(1).sub().get(upper).get(size).i32(1).sub().ltS().select().set(upper);
    f.get(src).get(lower).f32ConvertI32S().f32Sub().set(d);
  };

  f.get(c).i32(4).mul().set(cBytes);
  f.get(c).i32(-4).and().i32(4).mul().set(c4Bytes);
  f.get(w).get(cBytes).mul().set(rowBytes);
  f.get(out).set(op);
  f.get(r0).set(oy);
  f.countUp(oy, r1, 1, () => {
    source(oy, scaleY, h, dy);
    f.get(x).get(lower).get(rowBytes).mul().add().set(top);
    f.get(x).get(upper).get(rowBytes).mul().add().set(bottom);
    f.i32(0).set(ox);
    f.countUp(ox, ow, 1, () => {
      source(ox, scaleX, w, dx);
      // The weights of top-left, bottom-left, top-right, bottom-right, as kernels/resize.ts orders them.
      f.f32(1).get(dy).f32Sub().f32(1).get(dx).f32Sub().f32Mul().set(ws[0]);
      f.get(dy).f32(1).get(dx).f32Sub().f32Mul().set(ws[1]);
      f.f32(1).get(dy).f32Sub().get(dx).f32Mul().set(ws[2]);
      f.get(dy).get(dx).f32Mul().set(ws[3]);
      for (let k = 0; k < 4; k++) f.get(ws[k]).f32x4Splat().set(wv[k]);
      f.get(top).get(lower).get(cBytes).mul().add().set(sources[0]);
      f.get(bottom).get(lower).get(cBytes).mul().add().set(sources[1]);
      f.get(top).get(upper).get(cBytes).mul().add().set(sources[2]);
      f.get(bottom).get(upper).get(cBytes).mul().add().set(sources[3]);
      f.i32(0).set(cb);
      for (const vectorized of [true, false]) {
        f.countUp(cb, vectorized ? c4Bytes : cBytes, vectorized ? 16 : 4, () => {
          f.get(op).get(cb).add();
          for (let k = 0; k < 4; k++) {
            f.get(sources[k])
              .get(cb)
              .add()
              .load(vectorized)
              .get(vectorized ? wv[k] : ws[k]);
            if (vectorized) f.f32x4Mul();
            else f.f32Mul();
            if (k > 0) {
              if (vectorized) f.f32x4Add();
              else f.f32Add();
            }
          }
          f.store(vectorized);
        });
      }
      f.get(op).get(cBytes).add().set(op);
    });
  });
  return f;
}
