import { FunctionBuilder, I32, SHORT_COPY_BYTES } from './encoder.ts';

/**
 * im2col(x, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg, p0, rows, col), addresses
 * in bytes: the rows of im2col that kernels/conv.ts `fillColumnsNhwc` writes, for output
 * pixels [p0, p0 + rows) of one group of an NHWC convolution (x: the batch's first pixel at
 * the group's first channel; cg channels of c a tap), in (ky, kx, ci) order with zeros
 * outside the input, one row after the other from `col`. A window row that lies inside the
 * input with dilation 1 and all the channels is one copy of kw*c values (copyFloats: inline
 * moves under 256 bytes, memory.copy above), any other tap one of cg values; a tap outside
 * is one memory.fill. A row whose whole window lies inside the input (most rows) and whose
 * window rows are runs under SHORT_COPY_BYTES takes a path of its own: kh runs of the same
 * length, dh input rows apart, each moved 16 bytes at a time and its last 16 once more, with
 * nothing decided per run. Measured on its own (medians, alternating builds): BlazeFace's
 * first convolution (5x5 over 3 channels, 64x64 outputs) 320 us to 175, ResNet's 7x7 over
 * 3 channels (112x112 outputs) 1.55 ms to 0.91-1.07; runs of memory.copy length unchanged.
 */
export function im2colFunction(): FunctionBuilder {
  const f = new FunctionBuilder(
    'im2col',
    Array.from({ length: 18 }, () => I32),
  );
  const [x, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg, p0, rows, col] = Array.from({ length: 18 }, (_, i) => f.param(i));
  const [plane, n, oy, ox, row, iy0, ix0, ky, kx, iy, ix, whole, tapBytes, cBytes, rowBytes, imageBytes, base, from, runBytes] = Array.from({ length: 19 }, () => f.local(I32));
  // The inside path's: its runs' length, their last 16 bytes' start, the step between window rows, the window's last row, a run's cursor.
  const [windowRun, lastChunk, rowStep, lastRow, at] = Array.from({ length: 5 }, () => f.local(I32));
  f.get(oh).get(ow).mul().set(plane);
  f.get(p0).get(plane).divU().set(n);
  f.get(p0).get(n).get(plane).mul().sub().tee(oy).get(ow).divU().set(oy);
  f.get(p0).get(n).get(plane).mul().sub().get(oy).get(ow).mul().sub().set(ox);
  f.get(cg).i32(4).mul().set(tapBytes);
  f.get(c).i32(4).mul().set(cBytes);
  f.get(w).get(cBytes).mul().set(rowBytes);
  f.get(h).get(rowBytes).mul().set(imageBytes);
  f.get(kw).get(tapBytes).mul().set(windowRun);
  f.get(windowRun).i32(16).sub().set(lastChunk);
  f.get(dh).get(rowBytes).mul().set(rowStep);
  f.get(kh).i32(1).sub().get(dh).mul().set(lastRow);
  f.i32(0).set(row);
  f.countUp(row, rows, 1, () => {
    f.get(oy).get(sh).mul().get(pt).sub().set(iy0);
    f.get(ox).get(sw).mul().get(pl).sub().set(ix0);
    // whole = the window's rows are runs of kw*c values inside the input.
    f.get(dw).i32(1).eq();
    f.i32(0).get(ix0).leS().and();
    f.get(ix0).get(kw).add().get(w).leS().and();
    f.get(cg).get(c).eq().and().set(whole);
    // Inside: whole, every window row inside the input, and runs of 16 bytes or more that move inline (copyFloats gives longer ones to memory.copy).
    f.get(whole);
    f.i32(0).get(iy0).leS().and();
    f.get(iy0).get(lastRow).add().get(h).ltS().and();
    f.get(lastChunk).i32(0).geS().and();
    f.get(windowRun).i32(SHORT_COPY_BYTES).ltU().and();
    f.if();
    f.get(x).get(n).get(imageBytes).mul().add().get(iy0).get(rowBytes).mul().add().get(ix0).get(cBytes).mul().add().set(from);
    f.i32(0).set(ky);
    f.countUp(ky, kh, 1, () => {
      f.i32(0).set(at);
      f.block().loop();
      f.get(at).get(lastChunk).geU().brIf(1);
      f.get(col).get(at).add().get(from).get(at).add().v128Load().v128Store();
      f.get(at).i32(16).add().set(at).br(0);
      f.end().end();
      f.get(col).get(lastChunk).add().get(from).get(lastChunk).add().v128Load().v128Store();
      f.get(col).get(windowRun).add().set(col);
      f.get(from).get(rowStep).add().set(from);
    });
    f.else();
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
    f.end();
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
