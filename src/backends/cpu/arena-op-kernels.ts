import { elementCount, type Activation, type Node } from '../../graph/ir.ts';
import { padBefore } from '../../graph/window-geometry.ts';
import type { ArenaContext } from './arena-context.ts';
import { clampRange, finishActivation } from './kernels/activation.ts';
import { blockInner } from './kernels/binary.ts';
import { scaleOf } from './kernels/resize.ts';
import { IDLE, partRange, type Share, WHOLE } from './parts.ts';

/**
 * Ops without weights that the SIMD engine runs where their tensors lie, in one call each
 * (kernels/wasm/pool.ts, elementwise.ts, resize.ts): max and average pools of NHWC
 * networks, Add and Mul of equal shapes or against a row repeated over the other operand (a
 * per-channel vector in NHWC), ReLU and ReLU6, concatenation along any axis and zero
 * padding, each then its fused activation, bilinear resizes of NHWC images, and the mean of
 * each channel over an NHWC image (GlobalAveragePool, Mean over height and width). Undefined
 * for any other node, or one whose operands these kernels do not take (a constant operand,
 * NCHW pools, other broadcasts, a nearest resize): the CPU kernel then runs on views,
 * computing the same function (to float32 rounding: an average or a resize here sums in
 * float32).
 *
 * Split (parts.ts), the closure is one part's share: output rows of a pool or a resize, a
 * run of elements or of rows of the others (a concatenation's: of the indices before its
 * axis); a padding (a clearing, then copies) runs whole in part 0.
 */
export function arenaOpKernel(node: Node, context: ArenaContext, { part, parts }: Share = WHOLE): (() => void) | undefined {
  const { graph } = context;
  const tensor = (name: string) => graph.tensors.get(name);
  // Constants live in the node's weight record, not under their names: those nodes run on views.
  if (node.inputs.some((name) => name !== '' && tensor(name)?.constant === true)) return undefined;
  if (node.inputs.some((name) => name === '' || tensor(name) === undefined)) return undefined;
  switch (node.op) {
    case 'MaxPool':
    case 'AveragePool':
      return graph.layout === 'NHWC' ? poolKernel(node, context, part, parts) : undefined;
    case 'Add':
    case 'Mul':
      return binaryKernel(node, context, part, parts);
    case 'Relu':
      return clampKernel(node, context, 0, Infinity, part, parts);
    case 'Relu6':
      return clampKernel(node, context, 0, 6, part, parts);
    case 'Concat':
      return concatKernel(node, context, part, parts);
    case 'Pad':
      return wholeInPartZero(padKernel(node, context), part);
    case 'Mean':
    case 'GlobalAveragePool':
      return graph.layout === 'NHWC' ? wholeInPartZero(spatialMeanKernel(node, context), part) : undefined;
    case 'Resize':
      return graph.layout === 'NHWC' && node.mode === 'bilinear' ? resizeKernel(node, context, part, parts) : undefined;
    default:
      return undefined;
  }
}

/** A kernel that is not split: whole in part 0, nothing in the others (undefined stays undefined: not the engine's). */
function wholeInPartZero(kernel: (() => void) | undefined, part: number): (() => void) | undefined {
  return kernel === undefined || part === 0 ? kernel : IDLE;
}

function shapeOf(context: ArenaContext, name: string): readonly number[] {
  return context.graph.tensors.get(name)?.shape ?? [];
}

/** The NHWC images a pool or a resize reads and writes: batch, input h x w x c, output oh x ow; undefined unless both are 4-D. */
function imagesOf(context: ArenaContext, node: Node): { batch: number; h: number; w: number; c: number; oh: number; ow: number } | undefined {
  const inShape = shapeOf(context, node.inputs[0]);
  const outShape = shapeOf(context, node.outputs[0]);
  if (inShape.length !== 4 || outShape.length !== 4) return undefined;
  const [batch, h, w, c] = inShape;
  return { batch, h, w, c, oh: outShape[1], ow: outShape[2] };
}

/** A fused activation after an op wrote `count` floats at `out`: the clamp by the engine, sigmoid and tanh on a view. */
function activationPass(context: ArenaContext, activation: Activation, out: number, count: number): () => void {
  const { lo, hi } = clampRange(activation);
  if (activation === 'sigmoid' || activation === 'tanh') {
    const view = context.heap.subarray(out, out + count);
    return () => finishActivation(view, activation);
  }
  if (lo === -Infinity && hi === Infinity) return () => {};
  return () => context.engine.clamp(out, out, count, lo, hi);
}

type PoolNode = Extract<Node, { op: 'MaxPool' | 'AveragePool' }>;

function poolKernel(node: PoolNode, context: ArenaContext, part: number, parts: number): (() => void) | undefined {
  const images = imagesOf(context, node);
  if (images === undefined) return undefined;
  const { batch, h, w, c, oh, ow } = images;
  const [kh, kw] = node.kernel;
  const [sh, sw] = node.strides;
  const [pt, pl] = padBefore(node.padding, h, w, kh, kw, sh, sw, 1, 1);
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const isMax = node.op === 'MaxPool';
  // This part's output rows [r0, r1) of every image: their windows start r0*sh rows further down, as if the padding before were that much smaller.
  const { start: r0, end: r1 } = partRange(oh, part, parts);
  if (r0 === r1) return IDLE;
  const activate = Array.from({ length: batch }, (_, n) => activationPass(context, node.activation, out + (n * oh + r0) * ow * c, (r1 - r0) * ow * c));
  const { engine } = context;
  return () => {
    for (let n = 0; n < batch; n++) {
      engine.pool(isMax, x + n * h * w * c, out + (n * oh + r0) * ow * c, h, w, c, r1 - r0, ow, kh, kw, sh, sw, pt - r0 * sh, pl);
      activate[n]();
    }
  };
}

type BinaryNode = Extract<Node, { op: 'Add' | 'Mul' }>;

function binaryKernel(node: BinaryNode, context: ArenaContext, part: number, parts: number): (() => void) | undefined {
  const op = node.op === 'Add' ? 'add' : 'mul';
  const outShape = shapeOf(context, node.outputs[0]);
  const n = elementCount(outShape);
  let [a, b] = node.inputs;
  // Both ops commute: let `a` be the operand with the output's shape.
  if (elementCount(shapeOf(context, a)) !== n) [a, b] = [b, a];
  if (elementCount(shapeOf(context, a)) !== n) return undefined;
  const bShape = shapeOf(context, b);
  const bCount = elementCount(bShape);
  const { lo, hi } = clampRange(node.activation);
  const [fa, fb, out] = [context.at(a), context.at(b), context.at(node.outputs[0])];
  const { engine } = context;
  const transcendental = node.activation === 'sigmoid' || node.activation === 'tanh';
  if (bCount === n) {
    const { start, end } = partRange(n, part, parts, 4);
    if (start === end) return IDLE;
    const finish = transcendental ? activationPass(context, node.activation, out + start, end - start) : () => {};
    return () => {
      engine.binary(op, fa + start, fb + start, out + start, end - start, lo, hi);
      finish();
    };
  }
  // b repeats as a row along the output's last axes (a per-channel vector in NHWC), or is one value.
  if (bCount === 0 || (bCount !== 1 && blockInner(bShape, outShape) !== 1)) return undefined;
  const { start, end } = partRange(n / bCount, part, parts);
  if (start === end) return IDLE;
  const finish = transcendental ? activationPass(context, node.activation, out + start * bCount, (end - start) * bCount) : () => {};
  return () => {
    engine.binaryRows(op, fa + start * bCount, fb, out + start * bCount, end - start, bCount, lo, hi);
    finish();
  };
}

function clampKernel(node: Node, context: ArenaContext, lo: number, hi: number, part: number, parts: number): () => void {
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const { start, end } = partRange(elementCount(shapeOf(context, node.outputs[0])), part, parts, 4);
  if (start === end) return IDLE;
  return () => context.engine.clamp(x + start, out + start, end - start, lo, hi);
}

type ConcatNode = Extract<Node, { op: 'Concat' }>;

/**
 * Each input, per index of the axes before `axis`, is one run of the output's row: one
 * strided copy per input; a part takes a share of those indices (pixels, in NHWC).
 */
function concatKernel(node: ConcatNode, context: ArenaContext, part: number, parts: number): (() => void) | undefined {
  const outShape = shapeOf(context, node.outputs[0]);
  const rank = outShape.length;
  const axis = node.axis < 0 ? node.axis + rank : node.axis;
  if (!Number.isInteger(axis) || axis < 0 || axis >= rank) return undefined;
  let outer = 1;
  for (let k = 0; k < axis; k++) outer *= outShape[k];
  const total = elementCount(outShape);
  if (outer === 0 || total === 0) return undefined;
  const outRun = total / outer;
  const out = context.at(node.outputs[0]);
  const copies: { src: number; run: number; at: number }[] = [];
  let offset = 0;
  for (const name of node.inputs) {
    const run = elementCount(shapeOf(context, name)) / outer;
    copies.push({ src: context.at(name), run, at: offset });
    offset += run;
  }
  if (offset !== outRun) return undefined;
  const { start, end } = partRange(outer, part, parts);
  if (start === end) return IDLE;
  const activate = activationPass(context, node.activation, out + start * outRun, (end - start) * outRun);
  const { engine } = context;
  return () => {
    for (const { src, run, at } of copies) engine.copyRuns(src + start * run, run, out + start * outRun + at, outRun, run, end - start);
    activate();
  };
}

type PadNode = Extract<Node, { op: 'Pad' }>;

/**
 * Zero padding: the output cleared, then the input's innermost rows copied in, one strided
 * copy per index of the axes before the last two (a row of an NHWC image's pixels).
 */
function padKernel(node: PadNode, context: ArenaContext): (() => void) | undefined {
  const shape = shapeOf(context, node.inputs[0]);
  const outShape = shapeOf(context, node.outputs[0]);
  const rank = shape.length;
  if (rank < 2 || node.pads.length !== rank || node.pads.some(([before, after]) => before < 0 || after < 0)) return undefined;
  if (shape.some((d, k) => outShape[k] !== d + node.pads[k][0] + node.pads[k][1]) || elementCount(shape) === 0) return undefined;
  const outStrides = new Array<number>(rank).fill(1);
  for (let k = rank - 2; k >= 0; k--) outStrides[k] = outStrides[k + 1] * outShape[k + 1];
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const total = elementCount(outShape);
  const len = shape[rank - 1];
  const rows = shape[rank - 2];
  // Each copy: `rows` rows of `len` floats, from consecutive rows of x to rows outStrides[rank - 2] apart.
  const starts: { src: number; dst: number }[] = [];
  const outerShape = shape.slice(0, rank - 2);
  const outer = elementCount(outerShape);
  const index = new Array<number>(outerShape.length).fill(0);
  for (let k = 0; k < outer; k++) {
    let dst = out;
    for (let d = 0; d < rank; d++) dst += ((d < rank - 2 ? index[d] : 0) + node.pads[d][0]) * outStrides[d];
    starts.push({ src: x + k * rows * len, dst });
    for (let d = outerShape.length - 1; d >= 0; d--) {
      if (++index[d] < outerShape[d]) break;
      index[d] = 0;
    }
  }
  const { engine } = context;
  const step = outStrides[rank - 2];
  return () => {
    engine.zero(out, total);
    for (const { src, dst } of starts) engine.copyRuns(src, len, dst, step, len, rows);
  };
}

type MeanNode = Extract<Node, { op: 'Mean' | 'GlobalAveragePool' }>;

/**
 * The mean of each channel over height and width of NHWC images (GlobalAveragePool, or a Mean
 * over axes 1 and 2, kept or not: the output's values lie the same either way), as the
 * average pool whose one window is the whole image. Undefined for a Mean over other axes.
 */
function spatialMeanKernel(node: MeanNode, context: ArenaContext): (() => void) | undefined {
  const shape = shapeOf(context, node.inputs[0]);
  if (shape.length !== 4) return undefined;
  if (node.op === 'Mean') {
    const axes = new Set(node.axes.map((axis) => (axis < 0 ? axis + 4 : axis)));
    if (axes.size !== 2 || !axes.has(1) || !axes.has(2)) return undefined;
  }
  const [batch, h, w, c] = shape;
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const { engine } = context;
  return () => {
    for (let n = 0; n < batch; n++) engine.pool(false, x + n * h * w * c, out + n * c, h, w, c, 1, 1, h, w, 1, 1, 0, 0);
  };
}

type ResizeNode = Extract<Node, { op: 'Resize' }>;

/** A bilinear resize of NHWC images by the engine, a part's output rows of each. */
function resizeKernel(node: ResizeNode, context: ArenaContext, part: number, parts: number): (() => void) | undefined {
  const images = imagesOf(context, node);
  if (images === undefined) return undefined;
  const { batch, h, w, c, oh, ow } = images;
  const { start: r0, end: r1 } = partRange(oh, part, parts);
  if (r0 === r1) return IDLE;
  const scaleY = scaleOf(h, oh, node.alignCorners);
  const scaleX = scaleOf(w, ow, node.alignCorners);
  const x = context.at(node.inputs[0]);
  const out = context.at(node.outputs[0]);
  const { engine } = context;
  return () => {
    for (let n = 0; n < batch; n++) engine.resize(x + n * h * w * c, out + (n * oh + r0) * ow * c, h, w, c, ow, r0, r1, scaleY, scaleX, node.halfPixelCenters);
  };
}
