import { F32, FunctionBuilder, I32, V128, type Local } from './encoder.ts';

/**
 * The two transforms of a 3x3 stride-1 convolution by Winograd's minimal filtering F(2x2, 3x3)
 * (Lavin and Gray, 2016), NHWC, 4 channels at a time (c and o multiples of 4). Output tiles of
 * 2x2 pixels are numbered image by image, row by row (tilesW = ceil(ow / 2) a row,
 * tilesPerImage of them an image); tile (ty, tx) reads the 4x4 input pixels from row
 * 2*ty - pt, column 2*tx - pl on, zeros outside the input. A band is `count` tiles from t0;
 * its 16 transformed positions lie apart, position p's rows (one per tile) in a matrix of
 * their own, so that the product of position p is one call of the GEMM kernel:
 *
 *   winograd_in(x, h, w, c, tilesW, tilesPerImage, pt, pl, t0, count, v):
 *     V[p][t][ci] = (B^T d B)[p] for tile t0 + t's input d, at v + ((p*count + t)*c + ci)*4;
 *   winograd_out(m, count, o, bias, out, oh, ow, tilesW, tilesPerImage, t0, lo, hi):
 *     out pixel (2ty + i, 2tx + j) = clamp(bias + (A^T M A)[i][j], lo, hi) for M[p][t][oc] at
 *     m + ((p*count + t)*o + oc)*4, pixels past the output's last row or column not written.
 *
 * B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] and A^T = [1 1 1 0; 0 1 -1 -1] have only
 * ones: the transforms are additions in a fixed order (rows first, then columns), the same in
 * every executor. Addresses in bytes.
 */
export function winogradInputFunction(): FunctionBuilder {
  const f = new FunctionBuilder(
    'winograd_in',
    Array.from({ length: 11 }, () => I32),
  );
  const [x, h, w, c, tilesW, tilesPerImage, pt, pl, t0, count, v] = Array.from({ length: 11 }, (_, i) => f.param(i));
  const [cBytes, rowBytes, t, tile, n, ty, tx, iy0, ix0, dst, cb, q] = Array.from({ length: 12 }, () => f.local(I32));
  const rows = Array.from({ length: 4 }, () => f.local(I32));
  const rowValid = Array.from({ length: 4 }, () => f.local(I32));
  const colValid = Array.from({ length: 4 }, () => f.local(I32));
  const columns = Array.from({ length: 4 }, () => f.local(I32));
  const positions = Array.from({ length: 16 }, () => f.local(I32));
  const d = Array.from({ length: 4 }, () => f.local(V128));
  const e = Array.from({ length: 16 }, () => f.local(V128));
  const zero = f.local(V128);
  f.f32(0).f32x4Splat().set(zero);
  f.get(c).i32(4).mul().set(cBytes);
  f.get(w).get(cBytes).mul().set(rowBytes);
  for (let i = 0; i < 4; i++) f.get(cBytes).i32(i).mul().set(columns[i]);
  // positions[p] = p * count * c * 4: where position p's matrix starts.
  for (let p = 0; p < 16; p++) f.get(count).get(cBytes).mul().i32(p).mul().set(positions[p]);
  f.i32(0).set(t);
  f.countUp(t, count, 1, () => {
    tileOrigin(f, { t0, t, tile, n, ty, tx, tilesW, tilesPerImage });
    f.get(ty).i32(2).mul().get(pt).sub().set(iy0);
    f.get(tx).i32(2).mul().get(pl).sub().set(ix0);
    f.get(v).get(t).get(cBytes).mul().add().set(dst);
    // rows[j]: where input row iy0 + j would hold column ix0 (any value when the row is outside: it is not read then).
    f.get(x).get(n).get(h).mul().get(iy0).add().get(w).mul().get(ix0).add().get(cBytes).mul().add().set(rows[0]);
    for (let j = 1; j < 4; j++)
      f.get(rows[j - 1])
        .get(rowBytes)
        .add()
        .set(rows[j]);
    // Inside: all 16 pixels in the input (signed compares).
    f.i32(0).get(iy0).leS().get(iy0).i32(4).add().get(h).leS().and();
    f.i32(0).get(ix0).leS().and().get(ix0).i32(4).add().get(w).leS().and();
    f.if();
    f.i32(0).set(cb);
    f.countUp(cb, cBytes, 16, () => block(false));
    f.else();
    // At an edge: a pixel outside reads as zero (negative coordinates are large unsigned ones).
    for (let j = 0; j < 4; j++) f.get(iy0).i32(j).add().get(h).ltU().set(rowValid[j]);
    for (let i = 0; i < 4; i++) f.get(ix0).i32(i).add().get(w).ltU().set(colValid[i]);
    f.i32(0).set(cb);
    f.countUp(cb, cBytes, 16, () => block(true));
    f.end();
  });
  return f;

  /** Four channels (from byte cb) of the tile: load, transform, store the 16 positions. */
  function block(masked: boolean): void {
    for (let j = 0; j < 4; j++) {
      f.get(rows[j]).get(cb).add().set(q);
      for (let i = 0; i < 4; i++) {
        if (masked) {
          f.get(zero).set(d[i]);
          f.get(rowValid[j]).get(colValid[i]).and().if();
        }
        f.get(q).get(columns[i]).add().v128Load(0).set(d[i]);
        if (masked) f.end();
      }
      // d B along the row: (d0 - d2, d1 + d2, d2 - d1, d1 - d3).
      combine(e[4 * j], d[0], d[2], 'sub');
      combine(e[4 * j + 1], d[1], d[2], 'add');
      combine(e[4 * j + 2], d[2], d[1], 'sub');
      combine(e[4 * j + 3], d[1], d[3], 'sub');
    }
    // B^T (d B) down each column, stored as it comes.
    f.get(dst).get(cb).add().set(q);
    for (let i = 0; i < 4; i++) {
      const store = (p: number, a: Local, b: Local, op: 'add' | 'sub'): void => {
        f.get(q).get(positions[p]).add().get(a).get(b);
        if (op === 'add') f.f32x4Add();
        else f.f32x4Sub();
        f.v128Store(0);
      };
      store(i, e[i], e[8 + i], 'sub');
      store(4 + i, e[4 + i], e[8 + i], 'add');
      store(8 + i, e[8 + i], e[4 + i], 'sub');
      store(12 + i, e[4 + i], e[12 + i], 'sub');
    }
  }

  function combine(into: Local, a: Local, b: Local, op: 'add' | 'sub'): void {
    f.get(a).get(b);
    if (op === 'add') f.f32x4Add();
    else f.f32x4Sub();
    f.set(into);
  }
}

export function winogradOutputFunction(): FunctionBuilder {
  const f = new FunctionBuilder('winograd_out', [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32]);
  const [m, count, o, bias, out, oh, ow, tilesW, tilesPerImage, t0, lo, hi] = Array.from({ length: 12 }, (_, i) => f.param(i));
  const [oBytes, rowBytes, t, tile, n, ty, tx, oy, ox, pixel, right, below, src, ob, q] = Array.from({ length: 15 }, () => f.local(I32));
  const positions = Array.from({ length: 16 }, () => f.local(I32));
  const s = Array.from({ length: 8 }, () => f.local(V128));
  const [m0, m1, m2, m3, b, y, vlo, vhi] = Array.from({ length: 8 }, () => f.local(V128));
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  f.get(o).i32(4).mul().set(oBytes);
  f.get(ow).get(oBytes).mul().set(rowBytes);
  for (let p = 0; p < 16; p++) f.get(count).get(oBytes).mul().i32(p).mul().set(positions[p]);
  f.i32(0).set(t);
  f.countUp(t, count, 1, () => {
    tileOrigin(f, { t0, t, tile, n, ty, tx, tilesW, tilesPerImage });
    f.get(ty).i32(2).mul().set(oy);
    f.get(tx).i32(2).mul().set(ox);
    f.get(out).get(n).get(oh).mul().get(oy).add().get(ow).mul().get(ox).add().get(oBytes).mul().add().set(pixel);
    f.get(ox).i32(1).add().get(ow).ltU().set(right);
    f.get(oy).i32(1).add().get(oh).ltU().set(below);
    f.get(m).get(t).get(oBytes).mul().add().set(src);
    f.i32(0).set(ob);
    f.countUp(ob, oBytes, 16, () => {
      f.get(src).get(ob).add().set(q);
      // A^T M down each column: s[b] = M0b + M1b + M2b, s[4 + b] = M1b - M2b - M3b.
      for (let col = 0; col < 4; col++) {
        [m0, m1, m2, m3].forEach((into, row) =>
          f
            .get(q)
            .get(positions[4 * row + col])
            .add()
            .v128Load(0)
            .set(into),
        );
        f.get(m0).get(m1).f32x4Add().get(m2).f32x4Add().set(s[col]);
        f.get(m1)
          .get(m2)
          .f32x4Sub()
          .get(m3)
          .f32x4Sub()
          .set(s[4 + col]);
      }
      f.get(bias).get(ob).add().v128Load(0).set(b);
      // (A^T M) A along each row, plus the bias, clamped; the pixels inside the output stored.
      for (let i = 0; i < 2; i++) {
        const r = 4 * i;
        for (let j = 0; j < 2; j++) {
          if (j === 0)
            f.get(s[r])
              .get(s[r + 1])
              .f32x4Add()
              .get(s[r + 2])
              .f32x4Add();
          else
            f.get(s[r + 1])
              .get(s[r + 2])
              .f32x4Sub()
              .get(s[r + 3])
              .f32x4Sub();
          f.get(b).f32x4Add().clampTo(true, vlo, vhi).set(y);
          const inside = i === 0 ? (j === 0 ? undefined : right) : j === 0 ? below : undefined;
          if (i === 1 && j === 1) f.get(right).get(below).and().if();
          else if (inside !== undefined) f.get(inside).if();
          f.get(pixel).get(ob).add();
          if (i === 1) f.get(rowBytes).add();
          if (j === 1) f.get(oBytes).add();
          f.get(y).v128Store(0);
          if (i === 1 || j === 1) f.end();
        }
      }
    });
  });
  return f;
}

/** n, ty, tx of tile t0 + t. */
function tileOrigin(f: FunctionBuilder, v: { t0: Local; t: Local; tile: Local; n: Local; ty: Local; tx: Local; tilesW: Local; tilesPerImage: Local }): void {
  f.get(v.t0).get(v.t).add().tee(v.tile).get(v.tilesPerImage).divU().set(v.n);
  f.get(v.tile).get(v.n).get(v.tilesPerImage).mul().sub().tee(v.tile).get(v.tilesW).divU().set(v.ty);
  f.get(v.tile).get(v.ty).get(v.tilesW).mul().sub().set(v.tx);
}
