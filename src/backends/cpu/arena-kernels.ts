import { elementCount, type Node } from '../../graph/ir.ts';
import {
  convGeometryOf,
  depthwiseFrame,
  depthwiseLayout,
  depthwiseScratchFloats,
  GEMM_PANEL,
  packedFloats,
  paddedBiasFloats,
  WINOGRAD_POSITIONS,
  winogradScratchFloats,
  winogradTiles,
  type LayerMemory,
} from '../../graph/layer-memory.ts';
import type { ConvGeometry } from '../../graph/window-geometry.ts';
import { BackendError } from '../backend-error.ts';
import type { KernelCall } from './kernel.ts';
import { clampRange, finishActivation } from './kernels/activation.ts';
import { depthwisePixelNhwc } from './kernels/conv.ts';
import { KERNELS, WEIGHT_PREPARERS } from './kernels/index.ts';
import type { ArenaContext } from './arena-context.ts';
import { arenaOpKernel } from './arena-op-kernels.ts';
import { IDLE, partRange, type Share, takesItem, WHOLE } from './parts.ts';

/**
 * One layer as a closure over the buffer. Convolutions and FullyConnected run the SIMD
 * kernels of cpu/kernels/wasm/engine.ts where their operands lie: input, packed weights and
 * padded bias, band buffer and output are all in the one buffer, so nothing is staged,
 * copied or allocated. Each computes the very sums the CPU backend computes (the same
 * kernels over the same values in the same order), so the outputs are bit-identical to
 * an unbudgeted run. Every other op runs the SIMD engine's op kernel or the CPU backend's
 * kernel on views of the buffer.
 *
 * Split (parts.ts), the closure is one part's share: pixel rows of a 1x1 convolution, bands
 * of an im2col, Winograd or 3x3 depthwise convolution (in the running thread's band of the node's
 * scratch, which holds one per thread), output rows of another depthwise one, column panels
 * of FullyConnected; what is not split runs whole in part 0.
 */
export function layerKernel(node: Node, memory: LayerMemory, context: ArenaContext, share: Share = WHOLE): () => void {
  if (node.op === 'Conv') return convKernel(node, memory, context, share);
  if (node.op === 'FullyConnected') return denseKernel(node, context, share);
  return share.part === 0 ? cpuKernel(node, context) : IDLE;
}

type ConvNode = Extract<Node, { op: 'Conv' }>;

function convKernel(node: ConvNode, memory: LayerMemory, context: ArenaContext, share: Share): () => void {
  const { part, parts } = share;
  const { engine, heap } = context;
  const g = convGeometryOf(context.graph, node);
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const weights = context.at(`${node.name}@weights`);
  const { lo, hi } = floatRange(node);
  const output = heap.subarray(out, out + g.n * g.oh * g.ow * g.o);
  /** The fused sigmoid or tanh over output pixels [p0, p1). */
  const finish = (p0: number, p1: number): void => finishActivation(output, node.activation, p0 * g.o, p1 * g.o);
  switch (memory.path) {
    case 'pointwise': {
      // The NHWC input is already the product's A matrix: one row per pixel.
      const bias = weights + packedFloats(g.c, g.o);
      const { start, end } = partRange(g.n * g.h * g.w, part, parts, 4);
      if (start === end) return IDLE;
      return () => {
        engine.gemm(x + start * g.c, g.c, end - start, weights, g.c, g.o, bias, out + start * g.o, g.o, lo, hi);
        finish(start, end);
      };
    }
    case 'im2col': {
      const k = g.kh * g.kw * g.cg;
      const pixels = g.n * g.oh * g.ow;
      // Bands of at most the planned rows, and at least one per part (each band's sums do not depend on its size).
      const band = Math.min(memory.bandRows, Math.ceil((g.n * g.oh) / parts)) * g.ow;
      // This thread's own band buffer in the node's scratch.
      const columns = context.at(`${node.name}@scratch`) + (share.slot * memory.scratchBytes) / 4;
      const biases = weights + g.groups * packedFloats(k, g.og);
      return () => {
        for (let p0 = 0, index = 0; p0 < pixels; p0 += band, index++) {
          if (!takesItem(index, part, parts)) continue;
          const rows = Math.min(band, pixels - p0);
          for (let group = 0; group < g.groups; group++) {
            engine.im2col(x + group * g.cg, g, p0, rows, columns);
            engine.gemm(columns, k, rows, weights + group * packedFloats(k, g.og), k, g.og, biases + group * paddedBiasFloats(g.og), out + p0 * g.o + group * g.og, g.o, lo, hi);
          }
          finish(p0, p0 + rows);
        }
      };
    }
    case 'winograd3x3':
      return winogradKernel(node, g, memory, context, { x, weights, out, lo, hi, finish }, share);
    case 'depthwise3x3':
      return depthwise3x3Kernel(node, g, memory, context, { x, weights, out, lo, hi, finish }, share);
    case 'depthwise': {
      // Any other depthwise convolution: the CPU kernel's per-pixel loop (float64 sums) over the memory, the taps and bias where the weights lie.
      const accumulators = new Float64Array(g.o);
      const { start, end } = partRange(g.oh, part, parts);
      if (start === end) return IDLE;
      const operands = { x: heap, xAt: x, taps: heap, tapsAt: weights, bias: heap, biasAt: weights + g.kh * g.kw * g.o, out: heap, outAt: out };
      return () => {
        for (let n = 0; n < g.n; n++) {
          for (let oy = start; oy < end; oy++) for (let ox = 0; ox < g.ow; ox++) depthwisePixelNhwc(operands, g, lo, hi, accumulators, n, oy, ox);
        }
        for (let n = 0; n < g.n; n++) finish((n * g.oh + start) * g.ow, (n * g.oh + end) * g.ow);
      };
    }
    default:
      throw new BackendError(`node ${node.name}: the budgeted executor has no path for this convolution.`);
  }
}

/**
 * A 3x3 stride-1 convolution by Winograd's F(2x2, 3x3) (wasm/winograd.ts), a band of output
 * tiles at a time in this thread's band of the layer's scratch: the band's inputs transformed
 * into 16 position matrices, each multiplied by its position's transformed taps (the GEMM
 * kernel, with the zeros at the scratch's start as its bias), and the products transformed
 * back into the output with the bias and the clamp. 16 multiplies a tile (4 output pixels)
 * per input and output channel pair, where im2col's matrix product takes 36.
 */
function winogradKernel(node: ConvNode, g: ConvGeometry, memory: LayerMemory, context: ArenaContext, v: ConvOperands, share: Share): () => void {
  const { part, parts } = share;
  const { engine } = context;
  const tiles = winogradTiles(g);
  // At most the planned tiles, whole blocks of 4, and bands enough for every part.
  const band = Math.min(memory.bandRows, 4 * Math.ceil(tiles.total / parts / 4));
  const needed = winogradScratchFloats(g, band) * 4;
  if (needed > memory.scratchBytes) throw new BackendError(`node ${node.name} needs ${needed} bytes of scratch for a band of ${band} tiles but was given ${memory.scratchBytes}.`);
  const zeros = context.at(`${node.name}@scratch`) + (share.slot * memory.scratchBytes) / 4;
  const inputs = zeros + paddedBiasFloats(g.o);
  const products = inputs + WINOGRAD_POSITIONS * band * g.c;
  const packed = packedFloats(g.c, g.o);
  const bias = v.weights + WINOGRAD_POSITIONS * packed;
  /** The fused sigmoid or tanh over the band's output pixels: two rows of each image row of tiles it holds. */
  const finishTiles = (t0: number, count: number): void => {
    for (let t = t0; t < t0 + count; ) {
      const n = Math.floor(t / tiles.perImage);
      const ty = Math.floor((t - n * tiles.perImage) / tiles.perRow);
      const tx = t - n * tiles.perImage - ty * tiles.perRow;
      const run = Math.min(tiles.perRow - tx, t0 + count - t);
      for (let oy = 2 * ty; oy < Math.min(2 * ty + 2, g.oh); oy++) {
        const first = (n * g.oh + oy) * g.ow;
        v.finish(first + 2 * tx, first + Math.min(2 * (tx + run), g.ow));
      }
      t += run;
    }
  };
  const finishing = node.activation === 'sigmoid' || node.activation === 'tanh';
  return () => {
    engine.zero(zeros, paddedBiasFloats(g.o));
    for (let t0 = 0, index = 0; t0 < tiles.total; t0 += band, index++) {
      if (!takesItem(index, part, parts)) continue;
      const count = Math.min(band, tiles.total - t0);
      engine.winogradInput(v.x, g, t0, count, inputs);
      for (let p = 0; p < WINOGRAD_POSITIONS; p++) {
        engine.gemm(inputs + p * count * g.c, g.c, count, v.weights + p * packed, g.c, g.o, zeros, products + p * count * g.o, g.o, -Infinity, Infinity);
      }
      engine.winogradOutput(products, count, bias, v.out, g, t0, v.lo, v.hi);
      if (finishing) finishTiles(t0, count);
    }
  };
}

/** Where a convolution's operands lie (float offsets) and how its outputs are finished. */
interface ConvOperands {
  readonly x: number;
  readonly weights: number;
  readonly out: number;
  readonly lo: number;
  readonly hi: number;
  readonly finish: (p0: number, p1: number) => void;
}

/**
 * 3x3 depthwise (multiplier 1) by the SIMD kernel, a band of output rows at a time. Windows
 * that lie inside the input are read where the input lies. The rest (output rows whose
 * windows reach above or below the input, and the columns at the left and right edges) read
 * a copy of their input rows inside a frame of zeros as wide as the padding, in the layer's
 * scratch (this thread's band of it); the CPU backend frames the whole image the same way.
 * A tap outside adds a zero either way, so every output is the same sum as in the frame.
 * Against copying every band whole: DeepLab v3's 17 depthwise layers 22.4 to 18.9 ms,
 * MobileNet v2's 8.0 to 7.3 ms (medians of 12 traces each, the two ways taken in turn in one
 * process; outputs bit-identical).
 */
function depthwise3x3Kernel(node: ConvNode, g: ConvGeometry, memory: LayerMemory, context: ArenaContext, v: ConvOperands, share: Share): () => void {
  const { part, parts } = share;
  const { engine } = context;
  // At most the planned rows, and bands enough for every part.
  const bandRows = Math.min(memory.bandRows, Math.ceil((g.n * g.oh) / parts));
  const layout = depthwiseLayout(g);
  const { rows, cols, edges, inPlace } = layout;
  // This thread's share of the layer's scratch, which its frames must fit; a layer that frames nothing (every window inside) has none.
  const frameFloats = depthwiseScratchFloats(g, layout, bandRows);
  if (frameFloats * 4 > memory.scratchBytes) throw new BackendError(`node ${node.name} frames ${frameFloats * 4} bytes of its input but was given ${memory.scratchBytes} bytes of scratch.`);
  const frameAt = frameFloats > 0 ? context.at(`${node.name}@scratch`) + (share.slot * memory.scratchBytes) / 4 : 0;
  const width = depthwiseFrame(g, 1).width;
  const imageRow = g.w * g.c;
  // Frames the columns [firstColumn, firstColumn + columns) of input rows r0 * sh - pt on at `at`, zeros outside.
  const frame = (at: number, n: number, r0: number, count: number, firstColumn: number, columns: number): void => {
    const frameRows = depthwiseFrame(g, count).rows;
    const rowFloats = columns * g.c;
    const ix0 = Math.max(0, firstColumn);
    const ix1 = Math.min(g.w, firstColumn + columns);
    for (let fy = 0; fy < frameRows; fy++) {
      const iy = r0 * g.sh - g.pt + fy;
      const row = at + fy * rowFloats;
      if (iy < 0 || iy >= g.h || ix1 <= ix0) {
        engine.zero(row, rowFloats);
        continue;
      }
      const left = (ix0 - firstColumn) * g.c;
      const right = (ix1 - firstColumn) * g.c;
      // By the engine: TypedArray fill and copyWithin are slow on the shared memory (elementwise.ts zeroFunction).
      if (left > 0) engine.zero(row, left);
      engine.copyRuns(v.x + (n * g.h + iy) * imageRow + ix0 * g.c, 0, row + left, 0, right - left, 1);
      if (right < rowFloats) engine.zero(row + right, rowFloats - right);
    }
  };
  // Output rows [r0, r0 + count), columns [c0, c1), from a frame at `at` of `columns` columns whose first is input column c0 * sw - pl.
  const framed = (at: number, n: number, r0: number, count: number, c0: number, c1: number, columns: number): void => {
    frame(at, n, r0, count, c0 * g.sw - g.pl, columns);
    const rowFloats = columns * g.c;
    const first = (n * g.oh + r0) * g.ow + c0;
    engine.depthwise3x3(at, v.out + first * g.c, count, c1 - c0, g.sh * rowFloats, g.sw * g.c, g.dh * rowFloats, g.dw * g.c, g.ow * g.c, g.c, g.c, v.weights, v.weights + 9 * g.c, v.lo, v.hi);
  };
  return () => {
    let index = 0;
    for (let n = 0; n < g.n; n++) {
      for (let r0 = 0; r0 < g.oh; r0 += bandRows, index++) {
        if (!takesItem(index, part, parts)) continue;
        const r1 = Math.min(r0 + bandRows, g.oh);
        // Inside rows, where the band has any and the edges fit: the middle in place, the edges framed.
        const i0 = inPlace ? Math.min(Math.max(r0, rows.start), r1) : r1;
        const i1 = inPlace ? Math.max(Math.min(r1, rows.end), i0) : r1;
        if (i0 > r0) framed(frameAt, n, r0, i0 - r0, 0, g.ow, width);
        if (i1 > i0) {
          const ix = cols.start * g.sw - g.pl;
          const first = (n * g.oh + i0) * g.ow + cols.start;
          const input = v.x + ((n * g.h + i0 * g.sh - g.pt) * g.w + ix) * g.c;
          engine.depthwise3x3(
            input,
            v.out + first * g.c,
            i1 - i0,
            cols.end - cols.start,
            g.sh * imageRow,
            g.sw * g.c,
            g.dh * imageRow,
            g.dw * g.c,
            g.ow * g.c,
            g.c,
            g.c,
            v.weights,
            v.weights + 9 * g.c,
            v.lo,
            v.hi,
          );
          let at = frameAt;
          for (const edge of edges) {
            framed(at, n, i0, i1 - i0, edge.from, edge.to, edge.width);
            at += depthwiseFrame(g, i1 - i0).rows * edge.width * g.c;
          }
        }
        if (r1 > i1) framed(frameAt, n, i1, r1 - i1, 0, g.ow, width);
        const first = (n * g.oh + r0) * g.ow;
        v.finish(first, first + (r1 - r0) * g.ow);
      }
    }
  };
}

type DenseNode = Extract<Node, { op: 'FullyConnected' }>;

/** FullyConnected by the GEMM kernel; a part takes a run of whole column panels (output features). */
function denseKernel(node: DenseNode, context: ArenaContext, { part, parts }: Share): () => void {
  const { engine, heap, graph } = context;
  const [outFeatures, depth] = graph.tensors.get(node.inputs[1])?.shape ?? [0, 0];
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const weights = context.at(`${node.name}@weights`);
  const bias = weights + packedFloats(depth, outFeatures);
  const rows = elementCount(graph.tensors.get(node.inputs[0])?.shape ?? []) / depth;
  const { lo, hi } = floatRange(node);
  const output = heap.subarray(out, out + rows * outFeatures);
  const { start, end } = partRange(outFeatures, part, parts, GEMM_PANEL);
  if (start === end) return IDLE;
  return () => {
    // Panel p of the packed weights starts at p * depth * GEMM_PANEL floats.
    engine.gemm(x, depth, rows, weights + start * depth, depth, end - start, bias + start, out + start, outFeatures, lo, hi);
    for (let r = 0; r < rows; r++) finishActivation(output, node.activation, r * outFeatures + start, r * outFeatures + end);
  };
}

/**
 * Any other op: the CPU backend's kernel on views of the buffer (its constants read from the
 * layer's weight record). A kernel that derives its weights in a form of its own (a
 * convolution the executor does not run in place: NCHW, or weights that are not constants)
 * derives them once, here; `derived` says how many bytes that form holds, outside the buffer.
 */
export function viewKernel(node: Node, context: Omit<ArenaContext, 'engine'>): { run: () => void; derived: number } {
  const { graph, heap } = context;
  const shape = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
  const view = (at: number, name: string): Float32Array => heap.subarray(at, at + elementCount(shape(name)));
  let constantAt = 0;
  const inputs = node.inputs.map((name) => {
    if (name === '') return undefined;
    if (graph.tensors.get(name)?.constant) {
      const at = context.at(`${node.name}@weights`) + constantAt;
      constantAt += elementCount(shape(name));
      return view(at, name);
    }
    return view(context.at(name), name);
  });
  let call: KernelCall = {
    node,
    layout: graph.layout,
    inputs,
    inputShapes: node.inputs.map((name) => (name === '' ? [] : shape(name))),
    output: view(context.at(node.outputs[0]), node.outputs[0]),
    outputShape: shape(node.outputs[0]),
  };
  const prepared = WEIGHT_PREPARERS[node.op]?.(call);
  const isConstant = (k: number): boolean => graph.tensors.get(node.inputs[k])?.constant === true;
  if (prepared !== undefined && prepared.replaces.every(isConstant)) call = { ...call, prepared, inputs: call.inputs.map((data, k) => (prepared.replaces.includes(k) ? EMPTY : data)) };
  const kernel = KERNELS[node.op];
  const ready = call;
  return { run: () => kernel(ready), derived: ready.prepared?.bytes ?? 0 };
}

/** What a replaced raw input reads as: nothing (the kernel computes from its prepared form). */
const EMPTY = new Float32Array(0);

/** Any other op of the budgeted executor: the SIMD engine's where it has one (arena-op-kernels.ts), else a view kernel (none of its ops derives weights). */
function cpuKernel(node: Node, context: ArenaContext): () => void {
  return arenaOpKernel(node, context) ?? viewKernel(node, context).run;
}

/** The fused activation's clamp as float32 values (what the kernels store against). */
function floatRange(node: ConvNode | DenseNode): { lo: number; hi: number } {
  const range = clampRange(node.activation);
  return { lo: Math.fround(range.lo), hi: Math.fround(range.hi) };
}
