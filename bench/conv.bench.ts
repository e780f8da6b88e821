/**
 * 3x3 stride-1 convolutions by im2col and by Winograd F(2x2, 3x3) (`npm run bench:conv`),
 * against onnxruntime-node's Conv on the same shapes, one thread. Ours: the executor's SIMD
 * kernels on one engine memory, in bands as graph/layer-memory.ts plans them (im2col: bands of
 * whole output rows reaching 256 KiB, im2col then the GEMM; Winograd: the input transform,
 * 16 GEMMs, the output transform), operands in place; onnxruntime: a session of the one
 * convolution (its run, inputs and outputs included). Medians of the timed runs after warm-up;
 * WebAssembly compiled by V8's optimizing tier from the start (--no-liftoff), as in the
 * measured processes. The outputs of the executor (the CPU backend, which takes the Winograd
 * path on these shapes) against onnxruntime's: their relative error.
 *
 *   npm run bench:conv -- [--quick] [--repetitions 10] [--warmup 3]
 */
import { setFlagsFromString } from 'node:v8';
import { median } from 'simple-statistics';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { simdEngine } from '../src/backends/cpu/kernels/wasm/engine.ts';
import { executionRecords } from '../src/backends/execution-records.ts';
import { seededInputs, weightedGraph } from '../src/backends/run-data.ts';
import type { Graph } from '../src/graph/ir.ts';
import { BAND_BYTES, convGeometryOf, layerMemory, packedFloats, paddedBiasFloats, WINOGRAD_POSITIONS, winogradTiles } from '../src/graph/layer-memory.ts';
import { graphToProblem } from '../src/graph/lifetimes.ts';
import type { ConvGeometry } from '../src/graph/window-geometry.ts';
import { NetworkBuilder } from '../src/models/builder.ts';
import { planAndVerify } from '../src/planners/plan-and-verify.ts';
import { findPlanner } from '../src/planners/registry.ts';
import { kernelRunOptions } from './kernel-run-options.ts';

setFlagsFromString('--no-liftoff');

const options = kernelRunOptions('bench:conv', process.argv.slice(2));
const refuse = (message: string): never => {
  process.stderr.write(`bench:conv: ${message}\n`);
  process.exit(2);
};

/** Layers of the zoo's networks: height, width, input and output channels. */
const SHAPES: readonly { readonly layer: string; readonly shape: readonly [number, number, number, number] }[] = [
  { layer: 'SqueezeNet fire2/expand3x3', shape: [55, 55, 16, 64] },
  { layer: 'ResNet-152 conv2 3x3', shape: [56, 56, 64, 64] },
  { layer: 'ResNet-152 conv4 3x3', shape: [14, 14, 256, 256] },
  { layer: 'VGG-19 conv3', shape: [56, 56, 256, 256] },
  { layer: 'VGG-19 conv5', shape: [14, 14, 512, 512] },
];

function oneConv(h: number, w: number, c: number, o: number): Graph {
  const b = new NetworkBuilder('one-conv', 'float32');
  const x = b.input('x', [1, h, w, c]);
  return weightedGraph(b.build([b.conv('conv', x, { out: o, kernel: 3, activation: 'relu' })]), 'seeded', 1);
}

function timed(run: () => void): number {
  for (let k = 0; k < options.warmup; k++) run();
  const samples: number[] = [];
  for (let k = 0; k < options.repetitions; k++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** Ours both ways on one engine memory, operands in place: ms of each. */
function oursMs(g: ConvGeometry, winogradBand: number): { im2col: number; winograd: number } {
  const engine = simdEngine() ?? refuse('this runtime has no WebAssembly SIMD.');
  const k = 9 * g.c;
  const pixels = g.oh * g.ow;
  // im2col's band: the fewest output rows whose columns reach BAND_BYTES.
  const bandRows = Math.min(g.oh, Math.max(1, Math.ceil(BAND_BYTES / (g.ow * k * 4))));
  const tiles = winogradTiles(g).total;
  const arena = engine.arena();
  const x = arena.alloc(g.h * g.w * g.c);
  const columns = arena.alloc(bandRows * g.ow * k);
  const weights = arena.alloc(Math.max(packedFloats(k, g.o), WINOGRAD_POSITIONS * packedFloats(g.c, g.o)));
  const bias = arena.alloc(paddedBiasFloats(g.o));
  const zeros = arena.alloc(paddedBiasFloats(g.o));
  const inputs = arena.alloc(WINOGRAD_POSITIONS * winogradBand * g.c);
  const products = arena.alloc(WINOGRAD_POSITIONS * winogradBand * g.o);
  const out = arena.alloc(pixels * g.o);
  const heap = arena.commit();
  for (let i = x; i < out; i++) heap[i] = ((i * 7919) % 1000) / 1000 - 0.5;
  heap.fill(0, zeros, zeros + paddedBiasFloats(g.o));
  const im2col = timed(() => {
    for (let p0 = 0; p0 < pixels; p0 += bandRows * g.ow) {
      const rows = Math.min(bandRows * g.ow, pixels - p0);
      engine.im2col(x, g, p0, rows, columns);
      engine.gemm(columns, k, rows, weights, k, g.o, bias, out + p0 * g.o, g.o, 0, Number.POSITIVE_INFINITY);
    }
  });
  const packed = packedFloats(g.c, g.o);
  const winograd = timed(() => {
    for (let t0 = 0; t0 < tiles; t0 += winogradBand) {
      const count = Math.min(winogradBand, tiles - t0);
      engine.winogradInput(x, g, t0, count, inputs);
      for (let p = 0; p < WINOGRAD_POSITIONS; p++) {
        engine.gemm(inputs + p * count * g.c, g.c, count, weights + p * packed, g.c, g.o, zeros, products + p * count * g.o, g.o, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
      }
      engine.winogradOutput(products, count, bias, out, g, t0, 0, Number.POSITIVE_INFINITY);
    }
  });
  return { im2col, winograd };
}

// Loaded once the arguments are good: a refusal answers without loading onnxruntime.
const { peerJob, relativeError } = await import('../src/measuring/peer-session.ts');
const { runOnnxRuntime } = await import('../src/measuring/onnxruntime-peer.ts');

const shapes = options.quick ? SHAPES.slice(0, 1) : SHAPES;
const lines = [
  '| layer | h x w x c -> o | GFLOP (direct) | im2col ms | Winograd ms | im2col / Winograd | onnxruntime-node ms | Winograd / onnxruntime | relative error |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|',
];
for (const { layer, shape } of shapes) {
  const [h, w, c, o] = shape;
  process.stderr.write(`bench:conv: ${layer}\n`);
  const graph = oneConv(h, w, c, o);
  const node = graph.nodes[0];
  if (node.op !== 'Conv') throw new Error('the one-convolution network has no convolution.');
  const memory = layerMemory(graph, node);
  if (memory.path !== 'winograd3x3') refuse(`${layer} does not take the Winograd path (${memory.path}).`);
  const ours = oursMs(convGeometryOf(graph, node), memory.bandRows);
  const inputs = seededInputs(graph, 1);
  const peer = await runOnnxRuntime(await peerJob(graph, inputs), { warmup: options.warmup, repetitions: options.repetitions });
  const problem = graphToProblem(graph, executionRecords(cpuBackend));
  const prepared = await cpuBackend.prepare({ graph, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 }) });
  const error = relativeError(new Map(await prepared.infer(inputs)), peer.outputs);
  prepared.dispose();
  const peerMs = median([...peer.samples]);
  const gflop = (2 * h * w * 9 * c * o) / 1e9;
  lines.push(
    `| ${layer} | ${h}x${w}x${c} -> ${o} | ${gflop.toFixed(3)} | ${ours.im2col.toFixed(2)} | ${ours.winograd.toFixed(2)} | ${(ours.im2col / ours.winograd).toFixed(2)} | ${peerMs.toFixed(2)} | ${(ours.winograd / peerMs).toFixed(2)} | ${error.toExponential(1)} |`,
  );
}
lines.push(
  '',
  `One thread; medians of ${options.repetitions} timed runs after ${options.warmup} warm-up, for each layer the two ways of ours, then onnxruntime-node (one intra-op thread, all graph optimizations). Relative error: the executor's outputs (the Winograd path) against onnxruntime's.`,
);
process.stdout.write(`${lines.join('\n')}\n`);
