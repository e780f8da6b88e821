/**
 * Relaxed SIMD (f32x4.relaxed_madd: a fused multiply-add where the CPU has one) for the
 * kernels of this folder. Browsers ship it (Chrome 114); Node 22 does too, while Node 20's
 * V8 11.3 has it behind `--experimental-wasm-relaxed-simd`, which is turned on here, in the
 * running process, before the first module is compiled (V8 reads its WebAssembly feature
 * flags at each compile). Where neither works the kernels use plain SIMD, which computes the
 * same sums with a rounding after each multiply. `MEMPLAN_RELAXED_SIMD=0` (or
 * `setRelaxedSimdEnabled(false)`) keeps plain SIMD: to compare the two, in one process or
 * across the measured ones.
 */

/** A module of one function: (v128, v128, v128) -> v128, f32x4.relaxed_madd of its parameters. */
const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00, 0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02,
  0xfd, 0x85, 0x02, 0x0b,
]);

const V8_FLAG = '--experimental-wasm-relaxed-simd';

interface Runtime {
  WebAssembly?: { validate(bytes: Uint8Array): boolean };
  process?: { env?: Record<string, string | undefined>; getBuiltinModule?: (id: string) => unknown };
}

let wanted = (globalThis as Runtime).process?.env?.MEMPLAN_RELAXED_SIMD !== '0';
let available: boolean | undefined;

/** Turns relaxed SIMD off (plain SIMD kernels) or back on: tests and benchmarks. */
export function setRelaxedSimdEnabled(on: boolean): void {
  wanted = on;
}

/** Whether the kernels compiled now use relaxed SIMD: wanted, and the runtime compiles it. */
export function relaxedSimd(): boolean {
  if (!wanted) return false;
  available ??= probe();
  return available;
}

function probe(): boolean {
  const runtime = globalThis as Runtime;
  const wasm = runtime.WebAssembly;
  if (wasm === undefined) return false;
  if (wasm.validate(PROBE)) return true;
  try {
    const v8 = runtime.process?.getBuiltinModule?.('node:v8') as { setFlagsFromString(flags: string): void } | undefined;
    v8?.setFlagsFromString(V8_FLAG);
  } catch {
    return false;
  }
  return wasm.validate(PROBE);
}
