import { FunctionBuilder, I32, V128, encodeModule } from '../src/backends/cpu/kernels/wasm/encoder.ts';

/** A register-only loop's shape: accumulators, weight and x vectors, multiply-add rounds per iteration. */
interface LoopShape {
  readonly accumulators: number;
  readonly weights: number;
  readonly xs: number;
  readonly unroll: number;
}

/**
 * Three shapes, each within WebAssembly's 16 vector registers on x64: V8's code for such a
 * loop (register moves, spills) varies from shape to shape by as much as a third, so the
 * peak is the fastest of them.
 */
const SHAPES: readonly LoopShape[] = [
  { accumulators: 8, weights: 4, xs: 2, unroll: 4 },
  { accumulators: 8, weights: 2, xs: 1, unroll: 4 },
  { accumulators: 10, weights: 5, xs: 1, unroll: 2 },
];

/**
 * peak(iterations, out): per iteration, `unroll` rounds of one multiply-add into each
 * accumulator (relaxed_madd with `fused`, else a multiply and an add) of a vector x and a
 * vector w, x moved after each round, no load or store; the accumulators' sum stored at
 * `out` so that the work is kept. 8 floating-point operations per multiply-add (4 lanes x 2).
 */
function peakFunction(shape: LoopShape, fused: boolean): FunctionBuilder {
  const f = new FunctionBuilder('peak', [I32, I32]);
  const [iterations, out] = [f.param(0), f.param(1)];
  const acc = Array.from({ length: shape.accumulators }, () => f.local(V128));
  const w = Array.from({ length: shape.weights }, () => f.local(V128));
  const x = Array.from({ length: shape.xs }, () => f.local(V128));
  const i = f.local(I32);
  // Factors near 1: nothing overflows or goes subnormal over millions of iterations.
  w.forEach((local, k) =>
    f
      .f32(1 + (k + 1) * 1e-7)
      .f32x4Splat()
      .set(local),
  );
  x.forEach((local, k) =>
    f
      .f32(1 - k * 0.1)
      .f32x4Splat()
      .set(local),
  );
  f.countUp(i, iterations, 1, () => {
    for (let round = 0; round < shape.unroll; round++) {
      acc.forEach((local, k) => f.mulAddInto(local, fused, () => f.get(x[k % shape.xs]).get(w[(Math.floor(k / shape.xs) + round) % shape.weights])));
      // x moves every round, so that no product repeats or stays the same across iterations: the
      // compiler can neither share a multiply between accumulators nor hoist it out of the loop
      // (plain SIMD's multiplies would otherwise go uncounted). These adds are not counted.
      for (const local of x) f.get(local).get(w[0]).f32x4Add().set(local);
    }
  });
  f.get(out).get(acc[0]);
  for (let k = 1; k < acc.length; k++) f.get(acc[k]).f32x4Add();
  f.v128Store(0);
  return f;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number }) => object;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

/**
 * This CPU's WebAssembly SIMD peak on one thread, GFLOP/s: the fastest register-only loop
 * (above), each timed at its best of three runs after a warm-up. With `fused` relaxed SIMD's
 * madd (the caller has made sure the runtime compiles it), else plain SIMD's multiply and
 * add. What no 128-bit WebAssembly kernel can beat here: the yardstick of the GEMM kernels.
 */
export function simdPeakGflops(fused: boolean): number {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const iterations = 10_000_000;
  let best = 0;
  for (const shape of SHAPES) {
    const instance = new wasm.Instance(new wasm.Module(encodeModule([peakFunction(shape, fused)])), { env: { memory: new wasm.Memory({ initial: 1 }) } });
    const peak = instance.exports.peak as (iterations: number, out: number) => void;
    peak(iterations, 0);
    let fastest = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      peak(iterations, 0);
      fastest = Math.min(fastest, performance.now() - started);
    }
    best = Math.max(best, (shape.accumulators * shape.unroll * 8 * iterations) / fastest / 1e6);
  }
  return best;
}
