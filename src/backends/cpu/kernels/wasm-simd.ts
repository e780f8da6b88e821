import { BackendError } from '../../backend-error.ts';
import { F32, FunctionBuilder, I32, MAX_PAGES, V128, encodeModule, type Local } from './wasm-encoder.ts';

/**
 * The SIMD engine: two kernels written in WebAssembly (f32x4) by hand, the matrix product
 * of gemm.ts and the 3x3 depthwise convolution of conv.ts, on data staged into the engine's
 * own memory. Plain JavaScript tops out near 4 GFLOP/s (scalar float64 arithmetic, bounds
 * checks); these run 5-10x faster, which is what brings MobileNet v2 within 10x of
 * onnxruntime. Where WebAssembly SIMD is missing, or `setSimdEnabled(false)` says so, the
 * kernels fall back to their plain TypeScript loops, which compute the same function (to
 * float32 rounding: these kernels accumulate in float32, the loops in float64).
 *
 * Memory: bytes [0, 64) are the kernels' own temporary area; callers lay out their operands
 * after it with an `Arena` (per call: offsets only, then one commit that grows the memory).
 * Nothing stays there between calls: each call copies in its weights (packed and cached on
 * the JavaScript side) and activations and copies its result out; the memory only grows,
 * to the largest call's needs.
 */

/** Bytes reserved at the start of memory for the kernels' temporary stores. */
const RESERVED_BYTES = 64;

// ----- the GEMM kernel -----

/**
 * gemm(a, lda, m, b, k, n, bias, c, ldc, lo, hi, tmp), addresses and strides in bytes:
 *   C[i, j] = clamp(bias[j] + sum_kk A[i, kk] * B[kk, j], lo, hi)   i < m, j < n
 * A row-major (row stride lda); B packed in panels of 8 columns (panel p at b + p*k*32,
 * B[kk, 8p + q] at + kk*32 + q*4, zero past n); bias with panels*8 values (zero past n);
 * C row stride ldc, only its n columns written. Rows go 4 at a time (a 4x8 block of C in
 * 8 f32x4 accumulators: 2 loads of B and 4 broadcasts of A per 32 multiply-adds), then
 * one at a time. Requires k >= 1. `tmp`: 32 bytes of its own for the last panel's partial
 * stores (engines that share a memory, one per thread, each have their own).
 */
function gemmFunction(): FunctionBuilder {
  const f = new FunctionBuilder('gemm', [I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, I32]);
  const [a, lda, m, b, k, n, bias, c, ldc, lo, hi, tmp] = Array.from({ length: 12 }, (_, i) => f.param(i));
  const vlo = f.local(V128);
  const vhi = f.local(V128);
  const row = f.local(I32);
  const panels = f.local(I32);
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  f.get(n).i32(7).add().i32(3).shrU().set(panels);
  f.i32(0).set(row);
  const tile = rowTile(f, { a, lda, b, k, n, bias, c, ldc, vlo, vhi, row, panels, tmp });
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
  a: Local; lda: Local; b: Local; k: Local; n: Local; bias: Local; c: Local; ldc: Local;
  vlo: Local; vhi: Local; row: Local; panels: Local; tmp: Local;
}

/** Emits the code for `rows` rows (4 or 1) starting at `row`: every panel of 8 columns. */
function rowTile(f: FunctionBuilder, v: GemmLocals): (rows: number) => void {
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
    for (let i = 1; i < rows; i++) f.get(pointers[i - 1]).get(v.lda).add().set(pointers[i]);
    f.i32(0).set(panel);
    f.block().loop();
    f.get(panel).get(v.panels).geU().brIf(1);
    // Accumulators start at the bias.
    f.get(v.bias).get(panel).i32(32).mul().add().tee(pb).v128Load(0).set(w0);
    f.get(pb).v128Load(16).set(w1);
    for (let i = 0; i < rows; i++) f.get(w0).set(acc[2 * i]).get(w1).set(acc[2 * i + 1]);
    // pb = b + panel*k*32, end = pb + k*32.
    f.get(v.b).get(panel).get(v.k).mul().i32(32).mul().add().tee(pb).get(v.k).i32(32).mul().add().set(end);
    for (let i = 0; i < rows; i++) f.get(pointers[i]).set(cursors[i]);
    f.loop();
    f.get(pb).v128Load(0).set(w0);
    f.get(pb).v128Load(16).set(w1);
    for (let i = 0; i < rows; i++) {
      f.get(cursors[i]).loadSplat(0).set(x);
      f.get(acc[2 * i]).get(x).get(w0).f32x4Mul().f32x4Add().set(acc[2 * i]);
      f.get(acc[2 * i + 1]).get(x).get(w1).f32x4Mul().f32x4Add().set(acc[2 * i + 1]);
      f.get(cursors[i]).i32(4).add().set(cursors[i]);
    }
    f.get(pb).i32(32).add().tee(pb).get(end).ltU().brIf(0);
    f.end();
    // Store: cp = c + row*ldc + panel*32; nv = n - panel*8 columns left.
    f.get(v.c).get(v.row).get(v.ldc).mul().add().get(panel).i32(32).mul().add().set(cp);
    f.get(v.n).get(panel).i32(8).mul().sub().set(nv);
    f.get(nv).i32(8).geU().if();
    for (let i = 0; i < rows; i++) {
      f.get(cp).get(acc[2 * i]).get(v.vlo).f32x4Max().get(v.vhi).f32x4Min().v128Store(0);
      f.get(cp).get(acc[2 * i + 1]).get(v.vlo).f32x4Max().get(v.vhi).f32x4Min().v128Store(16);
      if (i + 1 < rows) f.get(cp).get(v.ldc).add().set(cp);
    }
    f.else();
    for (let i = 0; i < rows; i++) {
      // Through the temporary area: 8 values stored, nv of them copied.
      f.get(v.tmp).get(acc[2 * i]).get(v.vlo).f32x4Max().get(v.vhi).f32x4Min().v128Store(0);
      f.get(v.tmp).get(acc[2 * i + 1]).get(v.vlo).f32x4Max().get(v.vhi).f32x4Min().v128Store(16);
      f.i32(0).set(t).get(cp).set(dst);
      f.loop();
      f.get(dst).get(v.tmp).get(t).add().f32Load(0).f32Store(0);
      f.get(dst).i32(4).add().set(dst);
      f.get(t).i32(4).add().tee(t).get(nv).i32(4).mul().ltU().brIf(0);
      f.end();
      if (i + 1 < rows) f.get(cp).get(v.ldc).add().set(cp);
    }
    f.end();
    f.get(panel).i32(1).add().set(panel).br(0);
    f.end().end();
  };
}

// ----- the 3x3 depthwise kernel -----

/**
 * dw3x3(in, out, rows, cols, inRowStep, inColStep, tapY, tapX, outRowStep, pixel, c4, c, w,
 * bias, lo, hi), addresses and steps in bytes: a rectangle of output pixels of a 3x3
 * depthwise convolution with multiplier 1 whose windows lie inside the input (NHWC).
 * `in` is the first window's top-left tap (channel 0); consecutive output rows / columns
 * move the window by inRowStep / inColStep; taps are tapY / tapX apart; `out` is the first
 * output pixel, rows outRowStep apart, pixels (and channel runs) `pixel` bytes apart.
 * Channels [0, c4) go 4 at a time with the 9 weights in registers, the rest one by one.
 * Weights [9][c], bias [c]. Requires rows, cols >= 1.
 */
function depthwiseFunction(): FunctionBuilder {
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
  const av = f.local(V128);
  const ws = Array.from({ length: 9 }, () => f.local(F32));
  const bs = f.local(F32);
  const as = f.local(F32);
  f.get(lo).f32x4Splat().set(vlo);
  f.get(hi).f32x4Splat().set(vhi);
  f.get(c).i32(4).mul().set(cBytes);
  f.get(c4).i32(4).mul().set(c4Bytes);
  f.get(tapX).get(tapX).add().set(tapX2);
  f.i32(0).set(row);
  f.block().loop();
  f.get(row).get(rows).geU().brIf(1);
  f.get(input).get(row).get(inRowStep).mul().add().set(inRow);
  f.get(output).get(row).get(outRowStep).mul().add().set(outRow);
  f.i32(0).set(cb);

  const channelLoop = (vectorized: boolean): void => {
    const limit = vectorized ? c4Bytes : cBytes;
    const weights = vectorized ? wv : ws;
    const load = (offset: number): void => {
      if (vectorized) f.v128Load(offset);
      else f.f32Load(offset);
    };
    const madd = (): void => {
      if (vectorized) f.f32x4Mul().f32x4Add();
      else f.f32Mul().f32Add();
    };
    f.block().loop();
    f.get(cb).get(limit).geU().brIf(1);
    // The channel run's 9 weights and bias.
    f.get(w).get(cb).add().set(p);
    for (let j = 0; j < 9; j++) {
      f.get(p);
      load(0);
      f.set(weights[j]);
      if (j < 8) f.get(p).get(cBytes).add().set(p);
    }
    f.get(bias).get(cb).add();
    load(0);
    f.set(vectorized ? bv : bs);
    f.get(inRow).get(cb).add().set(ip);
    f.get(outRow).get(cb).add().tee(op).get(cols).get(pixel).mul().add().set(opEnd);
    f.loop();
    const accumulator = vectorized ? av : as;
    f.get(vectorized ? bv : bs).set(accumulator);
    for (let ky = 0; ky < 3; ky++) {
      // p = the tap row's first tap.
      if (ky === 0) f.get(ip).set(p);
      else f.get(p).get(tapY).add().set(p);
      for (let kx = 0; kx < 3; kx++) {
        f.get(accumulator);
        if (kx === 0) f.get(p);
        else f.get(p).get(kx === 1 ? tapX : tapX2).add();
        load(0);
        f.get(weights[ky * 3 + kx]);
        madd();
        f.set(accumulator);
      }
    }
    f.get(op).get(accumulator);
    if (vectorized) f.get(vlo).f32x4Max().get(vhi).f32x4Min().v128Store(0);
    else f.get(lo).f32Max().get(hi).f32Min().f32Store(0);
    f.get(ip).get(inColStep).add().set(ip);
    f.get(op).get(pixel).add().tee(op).get(opEnd).ltU().brIf(0);
    f.end();
    f.get(cb).i32(vectorized ? 16 : 4).add().set(cb).br(0);
    f.end().end();
  };
  channelLoop(true);
  channelLoop(false);
  f.get(row).i32(1).add().set(row).br(0);
  f.end().end();
  return f;
}

// ----- instantiation and staging -----

type GemmExport = (a: number, lda: number, m: number, b: number, k: number, n: number, bias: number, c: number, ldc: number, lo: number, hi: number, tmp: number) => void;
type DepthwiseExport = (...args: number[]) => void;

export interface SimdEngine {
  /** Lays out a call's operands: offsets in floats, 16-byte aligned, after the reserved area. */
  arena(): Arena;
  /**
   * C = clamp(A * B + bias) as the gemm kernel above, with offsets and strides in floats
   * into `heap()`: bias must hold ceil(n/8)*8 values.
   */
  gemm(a: number, lda: number, m: number, b: number, k: number, n: number, bias: number, c: number, ldc: number, lo: number, hi: number): void;
  /** The 3x3 depthwise kernel above, offsets and steps in floats. */
  depthwise3x3(input: number, output: number, rows: number, cols: number, inRowStep: number, inColStep: number, tapY: number, tapX: number, outRowStep: number, pixel: number, channels: number, weights: number, bias: number, lo: number, hi: number): void;
  /** The memory as floats (a new view after the memory grows). */
  heap(): Float32Array;
  memoryBytes(): number;
}

export interface Arena {
  /** Space for `floats` floats; returns its offset in floats. */
  alloc(floats: number): number;
  /** Grows the memory to hold everything allocated and returns the float view. */
  commit(): Float32Array;
}

let enabled = true;
let engine: SimdEngine | null | undefined;

/** Turns the SIMD engine off (plain TypeScript kernels everywhere) or back on: tests and benchmarks. */
export function setSimdEnabled(on: boolean): void {
  enabled = on;
}

/** Bytes of the engine's memory (operands staged for a call; it only grows): 0 before first use. */
export function simdMemoryBytes(): number {
  return engine ? engine.memoryBytes() : 0;
}

/** The engine, or undefined where WebAssembly SIMD is unavailable or turned off. */
export function simdEngine(): SimdEngine | undefined {
  if (!enabled) return undefined;
  if (engine === undefined) engine = createEngine();
  return engine ?? undefined;
}

/** A WebAssembly.Memory (the project's type libraries do not declare the API as a value). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here. */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

function wasmApi(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}

/**
 * A shared memory of exactly `pages` pages (64 KiB each) that never grows, or undefined
 * where this runtime has no shared WebAssembly memory: the budgeted executor's one buffer.
 * More pages than wasm32 addresses, or more than the runtime can allocate, is said as such
 * (a BackendError), not as a runtime without shared memory.
 */
export function sharedMemory(pages: number): WasmMemory | undefined {
  const wasm = wasmApi();
  if (wasm === undefined || typeof SharedArrayBuffer === 'undefined') return undefined;
  if (pages > MAX_PAGES) throw new BackendError(`a WebAssembly memory holds at most ${MAX_PAGES} pages of 64 KiB (4 GiB); ${pages} pages were asked for.`);
  try {
    return new wasm.Memory({ initial: pages, maximum: pages, shared: true });
  } catch (error) {
    throw new BackendError(`this runtime could not allocate a shared WebAssembly memory of ${pages} pages of 64 KiB (${(error as Error).message}).`);
  }
}

/**
 * The same kernels on a memory the caller owns (a `sharedMemory`), with operands where
 * they already lie: nothing is staged or copied, and the memory never grows. The 32 bytes
 * at `temporary` (default 0) are the kernels' temporary area: threads that share one memory
 * each bind an engine with an area of their own. Undefined where WebAssembly SIMD is
 * unavailable or turned off.
 */
export function simdEngineOn(memory: WasmMemory, temporary = 0): SimdEngine | undefined {
  if (!enabled) return undefined;
  return createEngine(memory, temporary) ?? undefined;
}

/**
 * Whether simdEngineOn can give kernels on a shared memory here: turned on, and the runtime
 * compiles the module for shared memories (WebAssembly, SIMD and threads). Compiles it once;
 * allocates no memory.
 */
export function simdOnSharedMemory(): boolean {
  return enabled && typeof SharedArrayBuffer !== 'undefined' && sharedKernels() !== null;
}

/** The compiled module for shared memories: compiled once, instantiated per memory. */
let sharedModule: object | null | undefined;

function compileKernels(shared: boolean): object | null {
  try {
    const wasm = wasmApi();
    if (wasm === undefined) return null;
    const bytes = encodeModule([gemmFunction(), depthwiseFunction()], { sharedMemory: shared });
    return wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    return null;
  }
}

function sharedKernels(): object | null {
  if (sharedModule === undefined) sharedModule = compileKernels(true);
  return sharedModule;
}

function createEngine(given?: WasmMemory, temporary = 0): SimdEngine | null {
  try {
    const wasm = wasmApi();
    if (wasm === undefined) return null;
    const module = given === undefined ? compileKernels(false) : sharedKernels();
    if (module === null) return null;
    const memory = given ?? new wasm.Memory({ initial: 16 });
    const instance = new wasm.Instance(module, { env: { memory } });
    const gemm = instance.exports.gemm as GemmExport;
    const dw3x3 = instance.exports.dw3x3 as DepthwiseExport;
    let view = new Float32Array(memory.buffer as ArrayBuffer);
    const heap = (): Float32Array => {
      if (view.buffer !== memory.buffer) view = new Float32Array(memory.buffer as ArrayBuffer);
      return view;
    };
    const ensure = (bytes: number): void => {
      const have = memory.buffer.byteLength;
      if (bytes > have) memory.grow(Math.ceil((Math.max(bytes, have * 1.25) - have) / 65536));
    };
    return {
      arena(): Arena {
        let top = RESERVED_BYTES / 4;
        return {
          alloc(floats: number): number {
            const at = top;
            top += Math.ceil(floats / 4) * 4;
            return at;
          },
          commit(): Float32Array {
            ensure(top * 4);
            return heap();
          },
        };
      },
      gemm(a, lda, m, b, k, n, bias, c, ldc, lo, hi) {
        gemm(a * 4, lda * 4, m, b * 4, k, n, bias * 4, c * 4, ldc * 4, lo, hi, temporary);
      },
      depthwise3x3(input, output, rows, cols, inRowStep, inColStep, tapY, tapX, outRowStep, pixel, channels, weights, bias, lo, hi) {
        dw3x3(input * 4, output * 4, rows, cols, inRowStep * 4, inColStep * 4, tapY * 4, tapX * 4, outRowStep * 4, pixel * 4, channels & ~3, channels, weights * 4, bias * 4, lo, hi);
      },
      heap,
      memoryBytes: () => memory.buffer.byteLength,
    };
  } catch {
    return null;
  }
}
