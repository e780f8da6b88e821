import { FunctionBuilder, I32 } from './encoder.ts';

/**
 * im2col(x, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg, p0, rows, col), addresses
 * in bytes: the rows of im2col that kernels/conv.ts `fillColumnsNhwc` writes, for output
 * pixels [p0, p0 + rows) of one group of an NHWC convolution (x: the batch's first pixel at
 * the group's first channel; cg channels of c a tap), in (ky, kx, ci) order with zeros
 * outside the input, one row after the other from `col`. A window row that lies inside the
 * input with dilation 1 and all the channels is one copy of kw*c values (copyFloats: inline
 * moves under 256 bytes, memory.copy above), any other tap one of cg values; a tap outside
 * is one memory.fill.
 */
export function im2colFunction(): FunctionBuilder {
  const f = new FunctionBuilder(
    'im2col',
    Array.from({ length: 18 }, () => I32),
  );
  const [x, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg, p0, rows, col] = Array.from({ length: 18 }, (_, i) => f.param(i));
  const [plane, n, oy, ox, row, iy0, ix0, ky, kx, iy, ix, whole, tapBytes, cBytes, rowBytes, imageBytes, base, from, runBytes] = Array.from({ length: 19 }, () => f.local(I32));
  f.get(oh).get(ow).mul().set(plane);
  f.get(p0).get(plane).divU().set(n);
  f.get(p0).get(n).get(plane).mul().sub().tee(oy).get(ow).divU().set(oy);
  f.get(p0).get(n).get(plane).mul().sub().get(oy).get(ow).mul().sub().set(ox);
  f.get(cg).i32(4).mul().set(tapBytes);
  f.get(c).i32(4).mul().set(cBytes);
  f.get(w).get(cBytes).mul().set(rowBytes);
  f.get(h).get(rowBytes).mul().set(imageBytes);
  f.i32(0).set(row);
  f.countUp(row, rows, 1, () => {
    f.get(oy).get(sh).mul().get(pt).sub().set(iy0);
    f.get(ox).get(sw).mul().get(pl).sub().set(ix0);
    // whole = the window's rows are runs of kw*c values inside the input.
    f.get(dw).i32(1).eq();
    f.i32(0).get(ix0).leS().and();
    f.get(ix0).get(kw).add().get(w).leS().and();
    f.get(cg).get(c).eq().and().set(whole);
    f.i32(0).set(ky);
    f.countUp(ky, kh, 1, () => {
      f.get(iy0).get(ky).get(dh).mul().add().tee(iy).get(h).geU().if();
      // A row above or below the input (negative iy is a large unsigned one): zeros.
      f.get(col).i32(0).get(kw).get(tapBytes).mul().memoryFill();
      f.get(col).get(kw).get(tapBytes).mul().add().set(col);
      f.else();
      f.get(x).get(n).get(imageBytes).mul().add().get(iy).get(rowBytes).mul().add().set(base);
      f.get(whole).if();
      f.get(base).get(ix0).get(cBytes).mul().add().set(from);
      f.get(kw).get(tapBytes).mul().set(runBytes);
      f.copyFloats(col, from, runBytes);
      f.get(col).get(kw).get(tapBytes).mul().add().set(col);
      f.else();
      f.i32(0).set(kx);
      f.countUp(kx, kw, 1, () => {
        f.get(ix0).get(kx).get(dw).mul().add().tee(ix).get(w).geU().if();
        f.get(col).i32(0).get(tapBytes).memoryFill();
        f.else();
        f.get(base).get(ix).get(cBytes).mul().add().set(from);
        f.copyFloats(col, from, tapBytes);
        f.end();
        f.get(col).get(tapBytes).add().set(col);
      });
      f.end();
      f.end();
    });
    // The next output pixel.
    f.get(ox).i32(1).add().tee(ox).get(ow).eq().if();
    f.i32(0).set(ox);
    f.get(oy).i32(1).add().tee(oy).get(oh).eq().if();
    f.i32(0).set(oy);
    f.get(n).i32(1).add().set(n);
    f.end();
    f.end();
  });
  return f;
}
