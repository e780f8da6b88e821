/**
 * A minimal WebAssembly binary encoder: enough to write the SIMD kernels of this folder by
 * hand (one module, an imported memory, a few exported functions). Written for this
 * project; only the instructions those kernels use are here.
 */

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
export type ValueType = typeof I32 | typeof F32 | typeof V128;

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let n = value >>> 0;
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function signedLeb(value: number): number[] {
  const out: number[] = [];
  let n = value | 0;
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function name(text: string): number[] {
  const bytes = [...new TextEncoder().encode(text)];
  return [...unsignedLeb(bytes.length), ...bytes];
}

function vector(items: readonly number[][]): number[] {
  return [...unsignedLeb(items.length), ...items.flat()];
}

function section(id: number, body: readonly number[]): number[] {
  return [id, ...unsignedLeb(body.length), ...body];
}

/** A local variable (or parameter) index. */
export type Local = number & { readonly __local: unique symbol };

/**
 * Runs shorter than this copyFloats moves inline; longer ones are one memory.copy. Measured
 * on Node 20 (runs of a concatenation on a shared memory, ns a run, memory.copy / inline):
 * 3 floats 12 / 4.5, 16 floats 11 / 8, 64 floats 18 / 18, 128 floats 28 / 34.
 */
export const SHORT_COPY_BYTES = 256;

/** One function: parameters, locals, and an instruction stream written by method calls. */
export class FunctionBuilder {
  readonly code: number[] = [];
  private readonly locals: ValueType[] = [];
  /** copyFloats' cursors and end, declared at its first use. */
  private copyLocals: [Local, Local, Local] | undefined;

  constructor(
    readonly exportName: string,
    readonly params: readonly ValueType[],
  ) {}

  param(index: number): Local {
    return index as Local;
  }

  local(type: ValueType): Local {
    this.locals.push(type);
    return (this.params.length + this.locals.length - 1) as Local;
  }

  private emit(...bytes: number[]): this {
    for (const b of bytes) this.code.push(b);
    return this;
  }

  private simd(opcode: number, ...immediates: number[]): this {
    return this.emit(0xfd, ...unsignedLeb(opcode), ...immediates);
  }

  // Variables and constants.
  get(local: Local): this {
    return this.emit(0x20, ...unsignedLeb(local));
  }
  set(local: Local): this {
    return this.emit(0x21, ...unsignedLeb(local));
  }
  tee(local: Local): this {
    return this.emit(0x22, ...unsignedLeb(local));
  }
  i32(value: number): this {
    return this.emit(0x41, ...signedLeb(value));
  }

  // Control.
  block(): this {
    return this.emit(0x02, 0x40);
  }
  loop(): this {
    return this.emit(0x03, 0x40);
  }
  end(): this {
    return this.emit(0x0b);
  }
  /** if (the i32 on the stack is not 0) ... [else ...] end, with no result. */
  if(): this {
    return this.emit(0x04, 0x40);
  }
  else(): this {
    return this.emit(0x05);
  }
  br(depth: number): this {
    return this.emit(0x0c, ...unsignedLeb(depth));
  }
  brIf(depth: number): this {
    return this.emit(0x0d, ...unsignedLeb(depth));
  }

  // i32 arithmetic and comparisons.
  add(): this {
    return this.emit(0x6a);
  }
  sub(): this {
    return this.emit(0x6b);
  }
  mul(): this {
    return this.emit(0x6c);
  }
  eqz(): this {
    return this.emit(0x45);
  }
  ltU(): this {
    return this.emit(0x49);
  }
  geU(): this {
    return this.emit(0x4f);
  }
  gtU(): this {
    return this.emit(0x4b);
  }
  ltS(): this {
    return this.emit(0x48);
  }
  gtS(): this {
    return this.emit(0x4a);
  }
  geS(): this {
    return this.emit(0x4e);
  }
  leS(): this {
    return this.emit(0x4c);
  }
  and(): this {
    return this.emit(0x71);
  }
  or(): this {
    return this.emit(0x72);
  }
  eq(): this {
    return this.emit(0x46);
  }
  divU(): this {
    return this.emit(0x6e);
  }
  /** Of the stack's a, b and condition: a where the condition is not 0, else b. */
  select(): this {
    return this.emit(0x1b);
  }
  shrU(): this {
    return this.emit(0x76);
  }

  // Scalar f32.
  f32Load(offset = 0): this {
    return this.emit(0x2a, 2, ...unsignedLeb(offset));
  }
  f32Store(offset = 0): this {
    return this.emit(0x38, 2, ...unsignedLeb(offset));
  }
  f32(value: number): this {
    const bytes = new Uint8Array(new Float32Array([value]).buffer);
    return this.emit(0x43, ...bytes);
  }
  f32Add(): this {
    return this.emit(0x92);
  }
  f32Sub(): this {
    return this.emit(0x93);
  }
  f32Div(): this {
    return this.emit(0x95);
  }
  f32Floor(): this {
    return this.emit(0x8e);
  }
  f32Ceil(): this {
    return this.emit(0x8d);
  }
  /** i32.trunc_f32_s: towards zero (traps outside the i32 range; the callers' values are pixel positions). */
  i32TruncF32S(): this {
    return this.emit(0xa8);
  }
  f32ConvertI32S(): this {
    return this.emit(0xb2);
  }
  f32Mul(): this {
    return this.emit(0x94);
  }
  f32Min(): this {
    return this.emit(0x96);
  }
  f32Max(): this {
    return this.emit(0x97);
  }

  /** Bulk memory's memory.copy of the stack's (destination, source, bytes); overlapping ranges copy as memmove. */
  memoryCopy(): this {
    return this.emit(0xfc, 0x0a, 0x00, 0x00);
  }
  /**
   * Copies `bytes` (a multiple of 4) from `src` to `dst`, ranges that do not overlap; the
   * three locals keep their values. A run shorter than SHORT_COPY_BYTES moves inline: 16
   * bytes at a time, then its last 16 once more (over bytes already moved, with the same
   * values), or 4 at a time under 16. A longer one is one memory.copy, which V8 compiles as a
   * call out of the module: dearer than the few moves of an im2col window row or of one
   * pixel's channels (see SHORT_COPY_BYTES).
   */
  copyFloats(dst: Local, src: Local, bytes: Local): this {
    this.copyLocals ??= [this.local(I32), this.local(I32), this.local(I32)];
    const [d, s, end] = this.copyLocals;
    this.get(bytes).i32(SHORT_COPY_BYTES).ltU().if();
    this.get(dst).set(d).get(src).set(s).get(dst).get(bytes).add().set(end);
    this.get(bytes).i32(16).geU().if();
    this.block().loop();
    this.get(end).get(d).i32(16).add().ltU().brIf(1);
    this.get(d).get(s).v128Load().v128Store();
    this.get(d).i32(16).add().set(d).get(s).i32(16).add().set(s).br(0);
    this.end().end();
    this.get(end).i32(16).sub().get(src).get(bytes).add().i32(16).sub().v128Load().v128Store();
    this.else();
    this.block().loop();
    this.get(d).get(end).geU().brIf(1);
    this.get(d).get(s).f32Load().f32Store();
    this.get(d).i32(4).add().set(d).get(s).i32(4).add().set(s).br(0);
    this.end().end();
    this.end();
    this.else();
    this.get(dst).get(src).get(bytes).memoryCopy();
    return this.end();
  }
  /** Bulk memory's memory.fill of the stack's (destination, byte value, bytes). */
  memoryFill(): this {
    return this.emit(0xfc, 0x0b, 0x00);
  }

  // SIMD (f32x4). Loads and stores take an alignment hint (log2 bytes) and an offset.
  v128Load(offset = 0): this {
    return this.simd(0x00, 2, ...unsignedLeb(offset));
  }
  v128Store(offset = 0): this {
    return this.simd(0x0b, 2, ...unsignedLeb(offset));
  }
  loadSplat(offset = 0): this {
    return this.simd(0x09, 2, ...unsignedLeb(offset));
  }
  f32x4Splat(): this {
    return this.simd(0x13);
  }
  /** f32x4.extract_lane: lane `lane` (0-3) of the stack's vector, as an f32. */
  f32x4ExtractLane(lane: number): this {
    return this.simd(0x1f, lane);
  }
  f32x4Add(): this {
    return this.simd(0xe4);
  }
  f32x4Sub(): this {
    return this.simd(0xe5);
  }
  f32x4Mul(): this {
    return this.simd(0xe6);
  }
  f32x4Min(): this {
    return this.simd(0xe8);
  }
  f32x4Max(): this {
    return this.simd(0xe9);
  }
  /** f32x4.pmin of the stack's a, b: b < a ? b : a per lane (one minps on x64, where f32x4.min is eight instructions). */
  f32x4Pmin(): this {
    return this.simd(0xea);
  }
  /** f32x4.pmax of the stack's a, b: a < b ? b : a per lane (one maxps on x64). */
  f32x4Pmax(): this {
    return this.simd(0xeb);
  }
  /** Relaxed SIMD's f32x4.relaxed_madd: a * b + c for the stack's a, b, c, in one rounding where the CPU fuses it. */
  f32x4RelaxedMadd(): this {
    return this.simd(0x105);
  }

  /** A load at the address on the stack: an f32x4, or one f32. */
  load(vectorized: boolean, offset = 0): this {
    return vectorized ? this.v128Load(offset) : this.f32Load(offset);
  }
  /** A store of the value on the stack at the address under it: an f32x4, or one f32. */
  store(vectorized: boolean, offset = 0): this {
    return vectorized ? this.v128Store(offset) : this.f32Store(offset);
  }
  /**
   * Clamps the f32x4 or f32 on the stack to [lo, hi] (locals of the same kind). The vector
   * clamp is x < lo ? lo : x, then hi < y ? hi : y (pmax, pmin): a NaN stays NaN as with
   * f32x4.max and min, which V8 compiles to eight instructions each on x64 (for their NaN
   * and signed-zero rules) where these are one; only -0 clamped at lo = 0 stays -0 (max
   * gives +0), which compares equal.
   */
  clampTo(vectorized: boolean, lo: Local, hi: Local): this {
    return vectorized ? this.get(lo).f32x4Pmax().get(hi).f32x4Pmin() : this.get(lo).f32Max().get(hi).f32Min();
  }
  /** for (; counter < end; counter += step) body(), unsigned; `body` may not branch out of it. */
  countUp(counter: Local, end: Local, step: number, body: () => void): this {
    this.block().loop();
    this.get(counter).get(end).geU().brIf(1);
    body();
    this.get(counter).i32(step).add().set(counter).br(0);
    return this.end().end();
  }

  /**
   * acc = acc + a * b on f32x4, where `factors` pushes a and b: one relaxed_madd when
   * `fused` (the module then needs relaxed SIMD), else a multiply and an add.
   */
  mulAddInto(acc: Local, fused: boolean, factors: () => void): this {
    if (fused) {
      factors();
      this.get(acc).f32x4RelaxedMadd();
    } else {
      this.get(acc);
      factors();
      this.f32x4Mul().f32x4Add();
    }
    return this.set(acc);
  }

  /** The function's body as the code section holds it (locals, instructions, end). */
  body(): number[] {
    const groups: number[][] = this.locals.map((type) => [1, type]);
    const bytes = [...vector(groups), ...this.code, 0x0b];
    return [...unsignedLeb(bytes.length), ...bytes];
  }
}

/** Pages (64 KiB) a shared memory import may have at most: all of wasm32's 4 GiB. */
export const MAX_PAGES = 65536;

/**
 * A module importing its memory as env.memory and exporting each function under its name;
 * every function returns nothing. With `sharedMemory`, the import is a shared memory (one
 * whose buffer a SharedArrayBuffer is, so that another thread can write into it: the
 * budgeted executor's loader), of any size up to 4 GiB.
 */
export function encodeModule(functions: readonly FunctionBuilder[], options: { readonly sharedMemory?: boolean } = {}): Uint8Array {
  const types = functions.map((f) => [0x60, ...vector(f.params.map((t) => [t])), 0]);
  // Memory limits: flags 0 (a minimum only) or 3 (shared, with a maximum), minimum 1 page.
  const limits = options.sharedMemory ? [0x03, 0x01, ...unsignedLeb(MAX_PAGES)] : [0x00, 0x01];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vector(types)),
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, ...limits]])),
    ...section(3, vector(functions.map((_, k) => unsignedLeb(k)))),
    ...section(7, vector(functions.map((f, k) => [...name(f.exportName), 0x00, ...unsignedLeb(k)]))),
    ...section(10, vector(functions.map((f) => f.body()))),
  ]);
}
