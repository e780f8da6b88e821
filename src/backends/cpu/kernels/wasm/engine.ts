import { winogradTiles } from '../../../../graph/layer-memory.ts';
import type { ConvGeometry } from '../../../../graph/window-geometry.ts';
import { BackendError } from '../../../backend-error.ts';
import { depthwiseFunction } from './depthwise.ts';
import { binaryFunction, clampFunction, copyRunsFunction, rowsFunction, zeroFunction, type BinaryOp } from './elementwise.ts';
import { MAX_PAGES, encodeModule } from './encoder.ts';
import { gemmFunction } from './gemm.ts';
import { im2colFunction } from './im2col.ts';
import { poolFunction } from './pool.ts';
import { resizeFunction } from './resize.ts';
import { winogradInputFunction, winogradOutputFunction } from './winograd.ts';
import { relaxedSimd } from './relaxed-simd.ts';
import { wasmApi, type WasmMemory } from './wasm-api.ts';

/**
 * The SIMD engine: kernels written in WebAssembly (f32x4) by hand, the matrix product of
 * gemm.ts, the 3x3 depthwise convolution of depthwise.ts, the pools, elementwise ops and
 * strided copies of pool.ts and elementwise.ts, the im2col rows of im2col.ts, Winograd's
 * transforms of winograd.ts and the bilinear resize of resize.ts, on data staged into the engine's own memory or on a
 * memory the caller owns, with relaxed SIMD's fused multiply-add where the runtime has it
 * (relaxed-simd.ts). Plain JavaScript tops out near 4 GFLOP/s (scalar float64 arithmetic,
 * bounds checks); these run 5-10x faster. Where WebAssembly SIMD is
 * missing, or `setSimdEnabled(false)` says so, the kernels fall back to their plain
 * TypeScript loops, which compute the same function (to float32 rounding: these kernels
 * accumulate in float32, the loops in float64).
 *
 * Memory: bytes [0, 64) are the kernels' own temporary area; callers lay out their operands
 * after it with an `Arena` (per call: offsets only, then one commit that grows the memory).
 * Nothing stays there between calls: each call copies in its weights (packed and cached on
 * the JavaScript side) and activations and copies its result out; the memory only grows,
 * to the largest call's needs.
 */

/** Bytes reserved at the start of memory for the kernels' temporary stores. */
const RESERVED_BYTES = 64;

type GemmExport = (a: number, lda: number, m: number, b: number, k: number, n: number, bias: number, c: number, ldc: number, lo: number, hi: number, tmp: number) => void;
type Export = (...args: number[]) => void;

export interface SimdEngine {
  /** Lays out a call's operands: offsets in floats, 16-byte aligned, after the reserved area. */
  arena(): Arena;
  /**
   * C = clamp(A * B + bias) as gemm.ts's kernel, with offsets and strides in floats
   * into `heap()`: bias must hold ceil(n/8)*8 values.
   */
  gemm(a: number, lda: number, m: number, b: number, k: number, n: number, bias: number, c: number, ldc: number, lo: number, hi: number): void;
  /** depthwise.ts's 3x3 kernel, offsets and steps in floats. */
  depthwise3x3(
    input: number,
    output: number,
    rows: number,
    cols: number,
    inRowStep: number,
    inColStep: number,
    tapY: number,
    tapX: number,
    outRowStep: number,
    pixel: number,
    channels: number,
    weights: number,
    bias: number,
    lo: number,
    hi: number,
  ): void;
  /** The pool of wasm/pool.ts over one NHWC image, offsets in floats. */
  pool(isMax: boolean, x: number, out: number, h: number, w: number, c: number, oh: number, ow: number, kh: number, kw: number, sh: number, sw: number, pt: number, pl: number): void;
  /** out[i] = clamp(a[i] op b[i], lo, hi), i < n; offsets in floats. */
  binary(op: BinaryOp, a: number, b: number, out: number, n: number, lo: number, hi: number): void;
  /** out[r, j] = clamp(a[r, j] op b[j], lo, hi), r < rows, j < c; offsets in floats. */
  binaryRows(op: BinaryOp, a: number, b: number, out: number, rows: number, c: number, lo: number, hi: number): void;
  /** out[i] = clamp(x[i], lo, hi), i < n; offsets in floats. */
  clamp(x: number, out: number, n: number, lo: number, hi: number): void;
  /** `count` runs of `floats` floats, the k-th from src + k*srcStep to dst + k*dstStep (each run's source and destination apart); offsets in floats. */
  copyRuns(src: number, srcStep: number, dst: number, dstStep: number, floats: number, count: number): void;
  /** Zeros `floats` floats from `at` (an offset in floats). */
  zero(at: number, floats: number): void;
  /**
   * Rows of im2col for output pixels [p0, p0 + rows) of one group (wasm/im2col.ts), from the
   * NHWC input at x (its first pixel, the group's first channel) to col; offsets in floats.
   */
  im2col(x: number, g: ConvGeometry, p0: number, rows: number, col: number): void;
  /**
   * Winograd F(2x2, 3x3)'s input transform (wasm/winograd.ts) of tiles [t0, t0 + count) of a
   * 3x3 stride-1 convolution (c a multiple of 4), from the NHWC input at x to the 16
   * position matrices from v; offsets in floats.
   */
  winogradInput(x: number, g: ConvGeometry, t0: number, count: number, v: number): void;
  /**
   * Its output transform: the 16 position products of tiles [t0, t0 + count) from m (o a
   * multiple of 4), plus the bias, clamped to [lo, hi], into the NHWC output at out; offsets in floats.
   */
  winogradOutput(m: number, count: number, bias: number, out: number, g: ConvGeometry, t0: number, lo: number, hi: number): void;
  /**
   * Output rows [r0, r1) of an NHWC bilinear resize of one image (wasm/resize.ts), h x w x c
   * at x to rows of ow x c from out; `scaleY`, `scaleX` input / output in float32 as
   * kernels/resize.ts `scaleOf` gives them, `halfPixel` TFLite's half-pixel centres; offsets
   * in floats.
   */
  resize(x: number, out: number, h: number, w: number, c: number, ow: number, r0: number, r1: number, scaleY: number, scaleX: number, halfPixel: boolean): void;
  /** The memory as floats (a new view after the memory grows). */
  heap(): Float32Array;
  memoryBytes(): number;
  /** Whether the kernels multiply-add in one relaxed SIMD instruction (else a multiply and an add). */
  readonly relaxed: boolean;
}

export interface Arena {
  /** Space for `floats` floats; returns its offset in floats. */
  alloc(floats: number): number;
  /** Grows the memory to hold everything allocated and returns the float view. */
  commit(): Float32Array;
}

let enabled = true;
/** The staged engine, made for the relaxed SIMD setting it was made under. */
let engine: { readonly relaxed: boolean; readonly value: SimdEngine | null } | undefined;

/** Turns the SIMD engine off (plain TypeScript kernels everywhere) or back on: tests and benchmarks. */
export function setSimdEnabled(on: boolean): void {
  enabled = on;
}

/** Bytes of the engine's memory (operands staged for a call; it only grows): 0 before first use. */
export function simdMemoryBytes(): number {
  return engine?.value ? engine.value.memoryBytes() : 0;
}

/** The engine, or undefined where WebAssembly SIMD is unavailable or turned off. */
export function simdEngine(): SimdEngine | undefined {
  if (!enabled) return undefined;
  const relaxed = relaxedSimd();
  if (engine?.relaxed !== relaxed) engine = { relaxed, value: createEngine() };
  return engine.value ?? undefined;
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

/** Compiled modules by memory kind and relaxed SIMD: each compiled once, instantiated per memory. */
const modules = new Map<string, object | null>();

function kernels(shared: boolean, relaxed: boolean): object | null {
  const key = `${shared ? 'shared' : 'own'}/${relaxed ? 'relaxed' : 'plain'}`;
  let module = modules.get(key);
  if (module === undefined) {
    module = compileKernels(shared, relaxed);
    modules.set(key, module);
  }
  return module;
}

function compileKernels(shared: boolean, relaxed: boolean): object | null {
  try {
    const wasm = wasmApi();
    if (wasm === undefined) return null;
    const functions = [
      gemmFunction(relaxed),
      depthwiseFunction(relaxed),
      poolFunction(true),
      poolFunction(false),
      binaryFunction('add'),
      binaryFunction('mul'),
      rowsFunction('add'),
      rowsFunction('mul'),
      clampFunction(),
      copyRunsFunction(),
      zeroFunction(),
      im2colFunction(),
      resizeFunction(),
      winogradInputFunction(),
      winogradOutputFunction(),
    ];
    const bytes = encodeModule(functions, { sharedMemory: shared });
    return wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    return null;
  }
}

function sharedKernels(): object | null {
  return kernels(true, relaxedSimd());
}

function createEngine(given?: WasmMemory, temporary = 0): SimdEngine | null {
  try {
    const wasm = wasmApi();
    if (wasm === undefined) return null;
    const relaxed = relaxedSimd();
    const module = kernels(given !== undefined, relaxed);
    if (module === null) return null;
    const memory = given ?? new wasm.Memory({ initial: 16 });
    const instance = new wasm.Instance(module, { env: { memory } });
    const gemm = instance.exports.gemm as GemmExport;
    const dw3x3 = instance.exports.dw3x3 as Export;
    const kernel = (name: string): Export => instance.exports[name] as Export;
    const [maxpool, avgpool, clamp, copyRuns, zero, im2col, resize, winogradIn, winogradOut] = [
      kernel('maxpool'),
      kernel('avgpool'),
      kernel('clamp'),
      kernel('copy_runs'),
      kernel('zero'),
      kernel('im2col'),
      kernel('resize'),
      kernel('winograd_in'),
      kernel('winograd_out'),
    ];
    const binary = { add: kernel('add'), mul: kernel('mul') };
    const rows = { add: kernel('add_rows'), mul: kernel('mul_rows') };
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
      pool(isMax, x, out, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl) {
        (isMax ? maxpool : avgpool)(x * 4, out * 4, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl);
      },
      binary(op, a, b, out, n, lo, hi) {
        binary[op](a * 4, b * 4, out * 4, n, lo, hi);
      },
      binaryRows(op, a, b, out, count, c, lo, hi) {
        rows[op](a * 4, b * 4, out * 4, count, c, lo, hi);
      },
      clamp(x, out, n, lo, hi) {
        clamp(x * 4, out * 4, n, lo, hi);
      },
      copyRuns(src, srcStep, dst, dstStep, floats, count) {
        copyRuns(src * 4, srcStep * 4, dst * 4, dstStep * 4, floats * 4, count);
      },
      zero(at, floats) {
        zero(at * 4, floats * 4);
      },
      im2col(x, g, p0, count, col) {
        im2col(x * 4, g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.cg, p0, count, col * 4);
      },
      winogradInput(x, g, t0, count, v) {
        const tiles = winogradTiles(g);
        winogradIn(x * 4, g.h, g.w, g.c, tiles.perRow, tiles.perImage, g.pt, g.pl, t0, count, v * 4);
      },
      winogradOutput(m, count, bias, out, g, t0, lo, hi) {
        const tiles = winogradTiles(g);
        winogradOut(m * 4, count, g.o, bias * 4, out * 4, g.oh, g.ow, tiles.perRow, tiles.perImage, t0, lo, hi);
      },
      resize(x, out, h, w, c, ow, r0, r1, scaleY, scaleX, halfPixel) {
        resize(x * 4, out * 4, h, w, c, ow, r0, r1, scaleY, scaleX, halfPixel ? 1 : 0);
      },
      heap,
      memoryBytes: () => memory.buffer.byteLength,
      relaxed,
    };
  } catch {
    return null;
  }
}

/** What the CPU kernels compute with here, in words: for a device's description. */
export function simdKernelsTitle(): string {
  const staged = simdEngine();
  if (staged === undefined) return 'TypeScript kernels (no WebAssembly SIMD)';
  return staged.relaxed ? 'WebAssembly SIMD kernels with relaxed SIMD fused multiply-add' : 'WebAssembly SIMD kernels';
}
