import { F32, FunctionBuilder, I32, V128, type Local } from './encoder.ts';

/** The binary operations the elementwise kernels compute. */
export type BinaryOp = 'add' | 'mul';

/** Splat lo and hi into f32x4 locals. */
function vectorBounds(f: FunctionBuilder, lo: Local, hi: Local): { vlo: Local; vhi: Local } {
  const vlo = f.local(V128);
  const vhi = f.local(V128);
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  return { vlo, vhi };
}

/**
 * The loops every elementwise kernel is made of: step(true) for byte offsets j from the
 * counter's value to ends.vector, 16 bytes (4 values) at a time, then step(false) on to
 * ends.all, one value at a time.
 */
function elementLoops(f: FunctionBuilder, j: Local, ends: { vector: Local; all: Local }, step: (vectorized: boolean) => void): void {
  for (const vectorized of [true, false]) f.countUp(j, vectorized ? ends.vector : ends.all, vectorized ? 16 : 4, () => step(vectorized));
}

function combine(f: FunctionBuilder, op: BinaryOp, vectorized: boolean): void {
  if (vectorized) {
    if (op === 'add') f.f32x4Add();
    else f.f32x4Mul();
  } else if (op === 'add') f.f32Add();
  else f.f32Mul();
}

/** Emits out[j] = clamp(a[j] op b[j], lo, hi) at byte offset j (f32x4 or f32). */
function binaryStep(f: FunctionBuilder, op: BinaryOp, v: { a: Local; b: Local; out: Local; j: Local; lo: Local; hi: Local; vlo: Local; vhi: Local }, vectorized: boolean): void {
  f.get(v.out).get(v.j).add();
  f.get(v.a).get(v.j).add().load(vectorized);
  f.get(v.b).get(v.j).add().load(vectorized);
  combine(f, op, vectorized);
  f.clampTo(vectorized, vectorized ? v.vlo : v.lo, vectorized ? v.vhi : v.hi).store(vectorized);
}

/** Sets `vector` to n rounded down to a multiple of 4 and `all` to n, both as bytes. */
function byteEnds(f: FunctionBuilder, n: Local): { vector: Local; all: Local } {
  const vector = f.local(I32);
  const all = f.local(I32);
  f.get(n).i32(-4).and().i32(4).mul().set(vector);
  f.get(n).i32(4).mul().set(all);
  return { vector, all };
}

/**
 * add / mul(a, b, out, n, lo, hi), addresses in bytes: out[i] = clamp(a[i] op b[i], lo, hi)
 * for i < n, 4 at a time, then one by one. `out` may be `a` or `b`.
 */
export function binaryFunction(op: BinaryOp): FunctionBuilder {
  const f = new FunctionBuilder(op, [I32, I32, I32, I32, F32, F32]);
  const [a, b, out, n, lo, hi] = Array.from({ length: 6 }, (_, i) => f.param(i));
  const { vlo, vhi } = vectorBounds(f, lo, hi);
  const ends = byteEnds(f, n);
  const j = f.local(I32);
  elementLoops(f, j, ends, (vectorized) => binaryStep(f, op, { a, b, out, j, lo, hi, vlo, vhi }, vectorized));
  return f;
}

/**
 * add_rows / mul_rows(a, b, out, rows, c, lo, hi), addresses in bytes: a row vector b of c
 * values against each of `rows` rows of a: out[r, j] = clamp(a[r, j] op b[j], lo, hi) (a
 * per-channel operand in NHWC). Each row 4 at a time, then one by one.
 */
export function rowsFunction(op: BinaryOp): FunctionBuilder {
  const f = new FunctionBuilder(`${op}_rows`, [I32, I32, I32, I32, I32, F32, F32]);
  const [a, b, out, rows, c, lo, hi] = Array.from({ length: 7 }, (_, i) => f.param(i));
  const { vlo, vhi } = vectorBounds(f, lo, hi);
  const ends = byteEnds(f, c);
  const row = f.local(I32);
  const j = f.local(I32);
  f.i32(0).set(row);
  f.countUp(row, rows, 1, () => {
    f.i32(0).set(j);
    elementLoops(f, j, ends, (vectorized) => binaryStep(f, op, { a, b, out, j, lo, hi, vlo, vhi }, vectorized));
    f.get(a).get(ends.all).add().set(a);
    f.get(out).get(ends.all).add().set(out);
  });
  return f;
}

/** clamp(x, out, n, lo, hi), addresses in bytes: out[i] = clamp(x[i], lo, hi) (ReLU, ReLU6), 4 at a time, then one by one. */
export function clampFunction(): FunctionBuilder {
  const f = new FunctionBuilder('clamp', [I32, I32, I32, F32, F32]);
  const [x, out, n, lo, hi] = Array.from({ length: 5 }, (_, i) => f.param(i));
  const { vlo, vhi } = vectorBounds(f, lo, hi);
  const ends = byteEnds(f, n);
  const j = f.local(I32);
  elementLoops(f, j, ends, (vectorized) => {
    f.get(out).get(j).add();
    f.get(x).get(j).add().load(vectorized);
    f.clampTo(vectorized, vectorized ? vlo : lo, vectorized ? vhi : hi).store(vectorized);
  });
  return f;
}

/**
 * copy_runs(src, srcStep, dst, dstStep, bytes, count), addresses in bytes: `count` runs of
 * `bytes`, the k-th from src + k*srcStep to dst + k*dstStep, each by copyFloats (short runs
 * moved inline, long ones by memory.copy; source and destination apart): a concatenation's,
 * a padding's or a depthwise frame's strided copies in one call.
 */
export function copyRunsFunction(): FunctionBuilder {
  const f = new FunctionBuilder('copy_runs', [I32, I32, I32, I32, I32, I32]);
  const [src, srcStep, dst, dstStep, bytes, count] = Array.from({ length: 6 }, (_, i) => f.param(i));
  const k = f.local(I32);
  f.i32(0).set(k);
  f.countUp(k, count, 1, () => {
    f.copyFloats(dst, src, bytes);
    f.get(src).get(srcStep).add().set(src);
    f.get(dst).get(dstStep).add().set(dst);
  });
  return f;
}

/**
 * zero(dst, bytes), addresses in bytes: memory.fill with zeros. On the executors' shared
 * memory this is the fill to use: TypedArray fill and copyWithin take a slow path on a
 * SharedArrayBuffer (measured on Node 20: 114,688 floats zeroed in 50-87 us by fill, 10-13 us
 * by memory.fill; 96 floats copied in 196-236 ns by copyWithin, 50-75 ns by copy_runs).
 */
export function zeroFunction(): FunctionBuilder {
  const f = new FunctionBuilder('zero', [I32, I32]);
  f.get(f.param(0)).i32(0).get(f.param(1)).memoryFill();
  return f;
}
