/**
 * The out-of-core GEMM kernel against onnxruntime's MatMul (`npm run bench:gemm`): the
 * tile kernel (WebAssembly SIMD, in place, one thread) at every tile size the GEMM study
 * uses, and onnxruntime-node's MatMul (one thread, in memory) on the largest, in one run,
 * as GFLOP/s and a ratio. Target: the kernel within 4x of onnxruntime (compute must not
 * hide the I/O the study is about, nor be hidden by it).
 *
 *   npm run bench:gemm -- [--n 4096]
 */
import { packB } from '../src/backends/cpu/kernels/gemm.ts';
import { pageAlignedMemory, tileGemmOn } from '../src/backends/cpu/kernels/wasm/tile-gemm.ts';
import { element } from '../src/backends/gemm/matrix-files.ts';
import { peerMatMul } from '../src/measuring/gemm/peer-matmul.ts';

const args = process.argv.slice(2);
const refuse = (message: string): never => {
  process.stderr.write(`bench:gemm: ${message}\nusage: npm run bench:gemm -- [--n 4096]\n`);
  process.exit(2);
};
// Only --n: anything else would be ignored, and the run would not be what was asked for.
if (!(args.length === 0 || (args.length === 2 && args[0] === '--n'))) refuse(`unknown arguments "${args.join(' ')}".`);
const n = args.length === 2 ? Number(args[1]) : 4096;
if (!Number.isSafeInteger(n) || n < 64 || n % 32 !== 0) refuse(`--n must be a multiple of 32 from 64, got ${args[1]}.`);

const rows: string[] = [];
let largest = 0;
for (let tile = 256; tile <= n; tile *= 2) {
  const bytes = tile * tile * 4;
  const memory = pageAlignedMemory(3 * bytes);
  const f = new Float32Array(memory.buffer);
  const a = new Float32Array(tile * tile);
  const b = new Float32Array(tile * tile);
  for (let r = 0; r < tile; r++)
    for (let c = 0; c < tile; c++) {
      a[r * tile + c] = element(1, 'A', r, c);
      b[r * tile + c] = element(1, 'B', r, c);
    }
  f.set(a, 0);
  f.set(packB(b, 0, tile, tile, tile, 1).data, tile * tile);
  const kernel = tileGemmOn(memory);
  kernel.gemm(0, bytes, 2 * bytes, tile, false);
  const runs = Math.max(1, Math.round(2 ** 33 / tile ** 3));
  const started = performance.now();
  for (let k = 0; k < runs; k++) kernel.gemm(0, bytes, 2 * bytes, tile, k > 0);
  const gflops = (2 * tile ** 3 * runs) / (performance.now() - started) / 1e6;
  if (tile === n) largest = gflops;
  rows.push(`| ${tile} | ${gflops.toFixed(1)} |`);
}
const peer = await peerMatMul(n, 1);
const ratio = largest / peer.gflops;
process.stdout.write(
  `${[
    '| tile | kernel GFLOP/s |',
    '|---:|---:|',
    ...rows,
    '',
    `${peer.runtime} MatMul, n = ${n}, one thread: ${peer.gflops.toFixed(1)} GFLOP/s. Kernel at tile ${n} over it: ${ratio.toFixed(2)} (target at least 0.25: ${ratio >= 0.25 ? 'met' : 'NO'}).`,
  ].join('\n')}\n`,
);
