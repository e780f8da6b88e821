/**
 * The GEMM kernels against this CPU's WebAssembly SIMD peak and onnxruntime's MatMul
 * (`npm run bench:gemm`), with relaxed SIMD's fused multiply-add and with plain SIMD, in
 * one run, one thread: the register-only peak (simd-peak.ts); the executor's kernel
 * (wasm/gemm.ts, a 4x8 block of C in registers, B packed) on n x n matrices of 1024; the
 * out-of-core tile kernel (wasm/tile-gemm.ts, in place) at every tile size the GEMM study
 * uses up to n; and onnxruntime-node's MatMul (one thread, in memory) on n. GFLOP/s and
 * ratios. Target: the tile kernel within 4x of onnxruntime (compute must not hide the I/O
 * the study is about, nor be hidden by it). WebAssembly is compiled by V8's optimizing tier
 * from the start (--no-liftoff), as in the measured processes.
 *
 *   npm run bench:gemm -- [--n 4096]
 */
import { setFlagsFromString } from 'node:v8';
import { packB } from '../src/backends/cpu/kernels/gemm.ts';
import { relaxedSimd, setRelaxedSimdEnabled } from '../src/backends/cpu/kernels/wasm/relaxed-simd.ts';
import { simdEngine } from '../src/backends/cpu/kernels/wasm/engine.ts';
import { pageAlignedMemory, tileGemmOn } from '../src/backends/cpu/kernels/wasm/tile-gemm.ts';
import { element } from '../src/backends/gemm/matrix-files.ts';
import { simdPeakGflops } from './simd-peak.ts';

setFlagsFromString('--no-liftoff');

const args = process.argv.slice(2);
const refuse = (message: string): never => {
  process.stderr.write(`bench:gemm: ${message}\nusage: npm run bench:gemm -- [--n 4096]\n`);
  process.exit(2);
};
// Only --n: anything else would be ignored, and the run would not be what was asked for.
if (!(args.length === 0 || (args.length === 2 && args[0] === '--n'))) refuse(`unknown arguments "${args.join(' ')}".`);
const n = args.length === 2 ? Number(args[1]) : 4096;
if (!Number.isSafeInteger(n) || n < 64 || n % 32 !== 0) refuse(`--n must be a multiple of 32 from 64, got ${args[1]}.`);
const ENGINE_N = Math.min(1024, n);

function matrix(which: 'A' | 'B', size: number): Float32Array {
  const out = new Float32Array(size * size);
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) out[r * size + c] = element(1, which, r, c);
  return out;
}

/**
 * GFLOP/s of `run` (one product of `flops`): after one warm-up call, the best of three
 * timings of about 2^31 flops each, as the peak is timed (a machine whose speed drifts
 * gives each figure its fastest stretch, not whatever stretch it fell on).
 */
function rate(flops: number, run: (k: number) => void): number {
  run(0);
  const runs = Math.max(1, Math.round(2 ** 31 / flops));
  let best = Number.POSITIVE_INFINITY;
  for (let timing = 0; timing < 3; timing++) {
    const started = performance.now();
    for (let k = 1; k <= runs; k++) run(k);
    best = Math.min(best, performance.now() - started);
  }
  return (flops * runs) / best / 1e6;
}

/** The executor's GEMM kernel on ENGINE_N x ENGINE_N, operands staged once in the engine's memory. */
function engineGflops(): number {
  const engine = simdEngine();
  if (engine === undefined) refuse('this runtime has no WebAssembly SIMD.');
  const size = ENGINE_N;
  const arena = engine!.arena();
  const [a, b, bias, c] = [arena.alloc(size * size), arena.alloc(size * size), arena.alloc(size), arena.alloc(size * size)];
  const heap = arena.commit();
  heap.set(matrix('A', size), a);
  heap.set(packB(matrix('B', size), 0, size, size, size, 1).data, b);
  heap.fill(0, bias, bias + size);
  return rate(2 * size ** 3, () => engine!.gemm(a, size, size, b, size, size, bias, c, size, -Infinity, Infinity));
}

/** The tile kernel at every tile size from 256 to n. */
function tileGflops(): Map<number, number> {
  const rates = new Map<number, number>();
  for (let tile = 256; tile <= n; tile *= 2) {
    const bytes = tile * tile * 4;
    const memory = pageAlignedMemory(3 * bytes);
    const f = new Float32Array(memory.buffer);
    f.set(matrix('A', tile), 0);
    f.set(packB(matrix('B', tile), 0, tile, tile, tile, 1).data, tile * tile);
    const kernel = tileGemmOn(memory);
    rates.set(
      tile,
      rate(2 * tile ** 3, (k) => kernel.gemm(0, bytes, 2 * bytes, tile, k > 0)),
    );
  }
  return rates;
}

const modes = relaxedSimd() ? [true, false] : [false];
const measured = modes.map((relaxed) => {
  setRelaxedSimdEnabled(relaxed);
  process.stderr.write(`bench:gemm: ${relaxed ? 'relaxed' : 'plain'} SIMD\n`);
  return { relaxed, peak: simdPeakGflops(relaxed), engine: engineGflops(), tiles: tileGflops() };
});
setRelaxedSimdEnabled(true);
process.stderr.write('bench:gemm: onnxruntime\n');
// Loaded once the arguments are good: a refusal answers without loading onnxruntime.
const { peerMatMul } = await import('../src/measuring/gemm/peer-matmul.ts');
const peer = await peerMatMul(n, 1);

const tiles = [...measured[0].tiles.keys()];
const lines = [
  `| kernels | register-only peak | executor GEMM n=${ENGINE_N} | of peak | ${tiles.map((t) => `tile ${t}`).join(' | ')} | tile ${n} / onnxruntime |`,
  `|---|---:|---:|---:|${tiles.map(() => '---:|').join('')}---:|`,
  ...measured.map((m) => {
    const largest = m.tiles.get(n) ?? 0;
    return `| ${m.relaxed ? 'relaxed SIMD (fused multiply-add)' : 'plain SIMD'} | ${m.peak.toFixed(1)} | ${m.engine.toFixed(1)} | ${(m.engine / m.peak).toFixed(2)} | ${tiles.map((t) => (m.tiles.get(t) ?? 0).toFixed(1)).join(' | ')} | ${(largest / peer.gflops).toFixed(2)} |`;
  }),
  '',
  `GFLOP/s, one thread. ${peer.runtime} MatMul, n = ${n}, one thread: ${peer.gflops.toFixed(1)} GFLOP/s.`,
];
if (!relaxedSimd()) lines.push('This runtime has no relaxed SIMD: plain SIMD only.');
const best = Math.max(...measured.map((m) => m.tiles.get(n) ?? 0)) / peer.gflops;
lines.push(`Tile kernel at tile ${n} over onnxruntime, the faster kernels: ${best.toFixed(2)} (target at least 0.25: ${best >= 0.25 ? 'met' : 'NO'}).`);
process.stdout.write(`${lines.join('\n')}\n`);
