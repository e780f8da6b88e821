import { elementCount, GraphError, type Graph, type Node } from './ir.ts';
import { convGeometry, type ConvGeometry } from './window-geometry.ts';

/**
 * A layer's own memory under a budget (FlexNN's weights and intermediates, beside the
 * activations), in the form the budgeted executor (src/backends/budgeted/) computes with,
 * so that the records are exactly what it holds:
 *
 * - weights in the form its kernels read, loaded as they are from the weights file: for
 *   convolutions and FullyConnected the matrix product's packed operand (panels of
 *   GEMM_PANEL output channels, zero past the last; cpu/kernels/gemm.ts) followed by the
 *   bias padded to whole panels (zeros where the layer has none), per group; for a 3x3
 *   stride-1 convolution on the Winograd path (winogradFits) the taps transformed, one
 *   packed operand per position of the 4x4 tile (16/9 of im2col's), then the padded bias;
 *   for depthwise convolutions the taps [kh*kw][channels] and the bias; for any other op
 *   its constants as raw float32 values, one after the other;
 * - intermediates: the im2col buffer of one band of output rows (input slicing, below)
 *   for convolutions that need one, a band of Winograd tiles' transformed inputs and
 *   products, or the zero-framed copies of the input a band of a 3x3 depthwise
 *   convolution reads at the image's edges (depthwiseLayout); 1x1 convolutions and the
 *   matrix products read their input where it lies and need none.
 *
 * Input slicing (FlexNN, section 3.2): an im2col convolution computes its output in bands
 * of whole output rows, so that only one band of the flattened input exists at a time. A
 * band is the fewest rows whose buffer reaches BAND_BYTES, the size the CPU backend's own
 * im2col tiles have, below which more bands would only add per-band work: "as many
 * slices as the platform allows".
 */

/** Output channels per packed panel of the matrix product (cpu/kernels/gemm.ts PANEL; the executor checks they agree). */
export const GEMM_PANEL = 8;

/** The smallest band of an input-sliced convolution: 256 KiB, the CPU backend's im2col tile. */
export const BAND_BYTES = 256 * 1024;

const FLOAT = 4;

/** How a convolution runs, which decides its weights' form and its scratch. */
export type ConvPath = 'pointwise' | 'im2col' | 'winograd3x3' | 'depthwise3x3' | 'depthwise';

/** Positions of a Winograd F(2x2, 3x3) tile: 4x4 transformed inputs, each a matrix product of its own. */
export const WINOGRAD_POSITIONS = 16;

/**
 * The fewest input channels for which the Winograd path beats im2col (cpu/kernels/wasm/winograd.ts).
 * One 55x55 layer to 64 channels, in bands as planned, the two ways in turn: 16 channels in,
 * Winograd 1.29-1.40x faster; 8 in, 0.90-1.18x; 4 in, 0.71x (its transforms outweigh the products).
 */
export const WINOGRAD_MIN_CHANNELS = 16;

export interface LayerMemory {
  /** Bytes of the layer's weights in the executor's form; 0 when it has none. */
  readonly weightBytes: number;
  /** Bytes of the layer's intermediate (one band); 0 when it needs none. */
  readonly scratchBytes: number;
  /** Convolutions with scratch: output rows per band (across the batch for im2col, per image for depthwise), output tiles per band for Winograd. */
  readonly bandRows: number;
  readonly path?: ConvPath;
}

export function packedFloats(k: number, n: number): number {
  return Math.ceil(n / GEMM_PANEL) * GEMM_PANEL * k;
}

/** The bias of n columns padded to whole panels. */
export function paddedBiasFloats(n: number): number {
  return Math.ceil(n / GEMM_PANEL) * GEMM_PANEL;
}

/** A matrix product's weights in floats, as im2col, 1x1 convolutions and FullyConnected read them: the packed operand (k x n), then the padded bias. */
export function gemmWeightFloats(k: number, n: number): number {
  return packedFloats(k, n) + paddedBiasFloats(n);
}

type ConvNode = Extract<Node, { op: 'Conv' }>;

export function convGeometryOf(graph: Graph, node: ConvNode): ConvGeometry {
  return convGeometry(node, shapeOf(graph, node.inputs[0]), shapeOf(graph, node.outputs[0]), graph.layout);
}

export function convPath(g: ConvGeometry): ConvPath {
  if (g.groups === g.c && g.cg === 1) return g.kh === 3 && g.kw === 3 && g.o === g.c ? 'depthwise3x3' : 'depthwise';
  const pointwise = g.groups === 1 && g.kh === 1 && g.kw === 1 && g.sh === 1 && g.sw === 1 && g.pt === 0 && g.pl === 0 && g.oh === g.h && g.ow === g.w;
  if (pointwise) return 'pointwise';
  return winogradFits(g) ? 'winograd3x3' : 'im2col';
}

/**
 * Whether a convolution runs by Winograd's F(2x2, 3x3): 3x3, stride and dilation 1, one
 * group, channels in and out multiples of 4 (its kernels' f32x4), and enough input channels
 * that the 16 matrix products outweigh the transforms.
 */
function winogradFits(g: ConvGeometry): boolean {
  const shape = g.groups === 1 && g.kh === 3 && g.kw === 3 && g.sh === 1 && g.sw === 1 && g.dh === 1 && g.dw === 1;
  return shape && g.c % 4 === 0 && g.o % 4 === 0 && g.c >= WINOGRAD_MIN_CHANNELS;
}

/** A Winograd convolution's 2x2 output tiles: a row's, an image's and the batch's. */
export function winogradTiles(g: ConvGeometry): { readonly perRow: number; readonly perImage: number; readonly total: number } {
  const perRow = Math.ceil(g.ow / 2);
  const perImage = perRow * Math.ceil(g.oh / 2);
  return { perRow, perImage, total: g.n * perImage };
}

/**
 * A Winograd band's scratch in floats: zeros for the products' bias (a panel-padded row),
 * then the 16 position matrices of its tiles' transformed inputs (tiles x c) and of their
 * products (tiles x o).
 */
export function winogradScratchFloats(g: ConvGeometry, tiles: number): number {
  return paddedBiasFloats(g.o) + WINOGRAD_POSITIONS * tiles * (g.c + g.o);
}

/** Rows of the zero-framed input a 3x3 depthwise band of `rows` output rows reads, and the frame's width. */
export function depthwiseFrame(g: ConvGeometry, rows: number): { rows: number; width: number } {
  const right = Math.max(0, (g.ow - 1) * g.sw + 2 * g.dw - g.pl - (g.w - 1));
  return { rows: (rows - 1) * g.sh + 2 * g.dh + 1, width: g.pl + g.w + right };
}

/** Output rows or columns [start, end). */
export interface OutputRange {
  readonly start: number;
  readonly end: number;
}

/** Output columns [from, to) at an edge, framed `width` input columns wide (from input column from * sw - pl on). */
export interface DepthwiseEdge {
  readonly from: number;
  readonly to: number;
  readonly width: number;
}

/**
 * How the executor's 3x3 depthwise kernel reads its input (cpu/arena-kernels.ts), a band of
 * output rows at a time: the windows that lie inside the input (`rows` by `cols`) where the
 * input lies; the columns at the left and right `edges` of those rows from copies framed in
 * zeros, side by side in the layer's scratch; output rows whose windows reach above or below
 * the input from a whole-width frame there. Where the edge frames would not fit a whole
 * frame's width beside each other (images a few pixels wide) or no window lies inside,
 * `inPlace` is false and every band is framed whole.
 */
export interface DepthwiseLayout {
  readonly rows: OutputRange;
  readonly cols: OutputRange;
  readonly edges: readonly DepthwiseEdge[];
  readonly inPlace: boolean;
}

export function depthwiseLayout(g: ConvGeometry): DepthwiseLayout {
  const rows = insideRange(g.oh, g.sh, g.pt, g.dh, g.h);
  const cols = insideRange(g.ow, g.sw, g.pl, g.dw, g.w);
  const edges = [
    { from: 0, to: cols.start },
    { from: cols.end, to: g.ow },
  ]
    .filter((edge) => edge.to > edge.from)
    .map((edge) => ({ ...edge, width: (edge.to - edge.from - 1) * g.sw + 2 * g.dw + 1 }));
  const inPlace = cols.end > cols.start && edges.reduce((sum, edge) => sum + edge.width, 0) <= depthwiseFrame(g, 1).width;
  return { rows, cols, edges, inPlace };
}

/**
 * The scratch the layout above fills for bands of at most `bandRows` rows: the larger of a
 * whole-width frame of the rows a band holds outside the input (every row of a band where
 * nothing is read in place) and the edge frames of a band's rows inside. Only what the
 * kernel writes is planned: a layer whose windows all lie inside the input needs none.
 */
export function depthwiseScratchFloats(g: ConvGeometry, layout: DepthwiseLayout, bandRows: number): number {
  const { rows, edges, inPlace } = layout;
  const outside = inPlace ? Math.min(bandRows, Math.max(rows.start, g.oh - rows.end)) : bandRows;
  const whole = outside > 0 ? depthwiseFrame(g, outside).rows * depthwiseFrame(g, 1).width * g.c : 0;
  const inside = Math.min(bandRows, rows.end - rows.start);
  const edgeFloats = inPlace && inside > 0 ? depthwiseFrame(g, inside).rows * edges.reduce((sum, edge) => sum + edge.width, 0) * g.c : 0;
  return Math.max(whole, edgeFloats);
}

/**
 * The outputs [start, end) along one axis whose 3-tap windows (taps `dilation` apart, the
 * first at o * stride - pad) lie inside an input of `size`; an empty range where none does.
 */
function insideRange(outputs: number, stride: number, pad: number, dilation: number, size: number): OutputRange {
  const start = Math.min(outputs, Math.ceil(pad / stride));
  const last = Math.floor((size - 1 - 2 * dilation + pad) / stride);
  return { start, end: Math.max(start, Math.min(outputs, last + 1)) };
}

/** The layer's weights and scratch in the executor's form (see above). */
export function layerMemory(graph: Graph, node: Node): LayerMemory {
  if (node.op === 'Conv') return convMemory(graph, node);
  if (node.op === 'FullyConnected') {
    requireConstant(graph, node, 1);
    const [outFeatures, depth] = shapeOf(graph, node.inputs[1]);
    return { weightBytes: gemmWeightFloats(depth, outFeatures) * FLOAT, scratchBytes: 0, bandRows: 0 };
  }
  let raw = 0;
  for (const name of node.inputs) {
    const tensor = graph.tensors.get(name);
    if (tensor?.constant) raw += elementCount(tensor.shape) * FLOAT;
  }
  return { weightBytes: raw, scratchBytes: 0, bandRows: 0 };
}

function convMemory(graph: Graph, node: ConvNode): LayerMemory {
  requireConstant(graph, node, 1);
  const g = convGeometryOf(graph, node);
  const path = convPath(g);
  if (path === 'depthwise3x3' || path === 'depthwise') {
    const taps = g.kh * g.kw;
    const weightBytes = (taps * g.o + g.o) * FLOAT;
    if (path === 'depthwise') return { weightBytes, scratchBytes: 0, bandRows: 0, path };
    // Bands as many rows as a whole frame of BAND_BYTES holds (the tile its loop is tuned for), the scratch only what they frame.
    const bandRows = fewestRowsReaching(g.oh, (rows) => {
      const frame = depthwiseFrame(g, rows);
      return frame.rows * frame.width * g.c * FLOAT;
    });
    return { weightBytes, scratchBytes: depthwiseScratchFloats(g, depthwiseLayout(g), bandRows) * FLOAT, bandRows, path };
  }
  if (path === 'winograd3x3') {
    // Bands of whole blocks of 4 tiles (the matrix product's row block), at least BAND_BYTES of scratch and 16 tiles where
    // the layer has that many: each band's 16 products read all the transformed taps, and with many channels a band of
    // BAND_BYTES is a block or two (VGG-19's 14x14x512 layers: 28.7-30.9 ms in bands of 4 tiles, 20.8-25.2 in bands of 16).
    const tiles = winogradTiles(g).total;
    const band = Math.min(tiles, Math.max(16, 4 * fewestRowsReaching(Math.ceil(tiles / 4), (blocks) => winogradScratchFloats(g, 4 * blocks) * FLOAT)));
    return { weightBytes: winogradWeightFloats(g.c, g.o) * FLOAT, scratchBytes: winogradScratchFloats(g, band) * FLOAT, bandRows: band, path };
  }
  const k = g.kh * g.kw * g.cg;
  const weightBytes = g.groups * gemmWeightFloats(k, g.og) * FLOAT;
  if (path === 'pointwise') return { weightBytes, scratchBytes: 0, bandRows: 0, path };
  const bytesOf = (rows: number): number => rows * g.ow * k * FLOAT;
  const bandRows = fewestRowsReaching(g.n * g.oh, bytesOf);
  return { weightBytes, scratchBytes: bytesOf(bandRows), bandRows, path };
}

/** A Winograd layer's weights in floats: each position's transformed taps packed as the matrix product reads them (c x o), then the padded bias. */
export function winogradWeightFloats(c: number, o: number): number {
  return WINOGRAD_POSITIONS * packedFloats(c, o) + paddedBiasFloats(o);
}

/** The fewest rows (at least 1, at most `total`) whose bytes reach BAND_BYTES. */
function fewestRowsReaching(total: number, bytesOf: (rows: number) => number): number {
  let rows = 1;
  while (rows < total && bytesOf(rows) < BAND_BYTES) rows++;
  return rows;
}

/**
 * The executor's own form of a node where the CPU executor runs it in place in its one
 * memory: NHWC convolutions and FullyConnected layers whose weights (and bias) are
 * constants, which the SIMD kernels read packed where they lie, with their scratch planned
 * (`scratchBytes`: a record of kind `scratch`). Undefined for every other node: it runs its
 * kernel on views of its tensors and needs no scratch of its own (or its kernel's own,
 * reported as unplanned).
 */
export function inPlaceLayer(graph: Graph, node: Node): LayerMemory | undefined {
  if (graph.layout !== 'NHWC' || (node.op !== 'Conv' && node.op !== 'FullyConnected')) return undefined;
  const constant = (index: number): boolean => graph.tensors.get(node.inputs[index])?.constant === true;
  if (!constant(1) || (node.inputs[2] !== undefined && node.inputs[2] !== '' && !constant(2))) return undefined;
  return layerMemory(graph, node);
}

/** The id of a node's scratch record. */
export function scratchId(node: Node): string {
  return `${node.name}@scratch`;
}

function requireConstant(graph: Graph, node: Node, input: number): void {
  const tensor = graph.tensors.get(node.inputs[input]);
  if (tensor === undefined || !tensor.constant) {
    throw new GraphError(`node ${node.name} (${node.op}): its weights ${node.inputs[input] || '(none)'} are not a constant; budgeted execution loads constant weights from storage.`);
  }
}

function shapeOf(graph: Graph, name: string): readonly number[] {
  const tensor = graph.tensors.get(name);
  if (tensor === undefined) throw new GraphError(`tensor ${name} is not in the graph.`);
  return tensor.shape;
}
