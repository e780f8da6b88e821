import { elementCount, type Graph, type Node } from '../../graph/ir.ts';
import { convGeometryOf, convPath, GEMM_PANEL, inPlaceLayer, packedFloats, paddedBiasFloats, WINOGRAD_POSITIONS } from '../../graph/layer-memory.ts';
import type { ConvGeometry } from '../../graph/window-geometry.ts';
import { BackendError } from '../backend-error.ts';
import { PANEL } from './kernels/gemm.ts';

// The records and the weights' sizes come from the graph layer's panel width; the kernels' must agree.
if (PANEL !== GEMM_PANEL) throw new Error(`the CPU GEMM packs panels of ${PANEL} columns but the graph layer assumes ${GEMM_PANEL}.`);

/**
 * Where each value of one constant goes among a node's weights, in the form the node's
 * kernel reads (graph/layer-memory.ts says the form): `write` takes any run of the constant's
 * elements (`values` are elements `at` onwards, in the constant's own row-major order) and
 * puts each where it belongs in `target`, the node's weights (float 0: their start). Runs may
 * come in any size, so a constant is written as it is produced (a seeded stream, a file)
 * without a whole copy of it beside the node's form. Places no value maps to (packed
 * panels past the last column, padded biases) are left as they are: zero in a fresh memory.
 */
export interface Placement {
  readonly constant: string;
  write(values: Float32Array, at: number, target: Float32Array): void;
}

/** A node's weights: how many floats they take and where each of its constants goes. */
export interface NodeWeights {
  readonly floats: number;
  readonly placements: readonly Placement[];
}

/**
 * The weights of `node` as the CPU executor keeps them: in the executor's packed form for a
 * node it runs in place (inPlaceLayer: the matrix product's packed operand and padded bias
 * per group; a depthwise convolution's taps [kh*kw][channels] and bias), else (or where
 * `inPlace` is false: no SIMD engine) the node's constants raw, one after the other.
 */
export function nodeWeights(graph: Graph, node: Node, inPlace = true): NodeWeights {
  const layer = inPlace ? inPlaceLayer(graph, node) : undefined;
  if (layer === undefined) return rawWeights(graph, node);
  const floats = layer.weightBytes / 4;
  if (node.op === 'FullyConnected') {
    const [outFeatures, depth] = shapeOf(graph, node.inputs[1]);
    return { floats, placements: [packedPlacement(node.inputs[1], depth, outFeatures, (within) => within), ...biasPlacement(node, packedFloats(depth, outFeatures), outFeatures, 1)] };
  }
  if (node.op !== 'Conv') throw new BackendError(`node ${node.name} (${node.op}) has no in-place form.`);
  const g = convGeometryOf(graph, node);
  const path = convPath(g);
  if (path === 'depthwise3x3' || path === 'depthwise') {
    // Taps [kh*kw][channels], TFLite's 1HWO order: the same order as 1HWO weights, a transpose of OIHW ones.
    const taps = g.kh * g.kw;
    const tap: Placement =
      node.weightLayout === '1HWO' ? raw(node.inputs[1], 0) : { constant: node.inputs[1], write: (values, at, target) => scatter(values, at, target, (e) => (e % taps) * g.o + Math.floor(e / taps)) };
    return { floats, placements: [tap, ...(node.inputs[2] ? [raw(node.inputs[2], taps * g.o)] : [])] };
  }
  if (node.weightLayout === '1HWO') throw new BackendError(`node ${node.name}: 1HWO weights belong to depthwise convolutions.`);
  if (path === 'winograd3x3') {
    const taps = winogradPlacement(node.inputs[1], g, node.weightLayout === 'OHWI');
    return { floats, placements: [taps, ...biasPlacement(node, WINOGRAD_POSITIONS * packedFloats(g.c, g.o), g.o, 1)] };
  }
  const k = g.kh * g.kw * g.cg;
  // Position in a row of the packed operand, (ky*kw + kx)*cg + ci, from a position within an output channel's row.
  const column =
    node.weightLayout === 'OHWI'
      ? (within: number) => within
      : (within: number) => {
          // OIHW: within = (ci*kh + ky)*kw + kx
          const ci = Math.floor(within / (g.kh * g.kw));
          const tap = within % (g.kh * g.kw);
          return tap * g.cg + ci;
        };
  const bias = g.groups * packedFloats(k, g.og);
  return { floats, placements: [packedPlacement(node.inputs[1], k, g.og, column), ...biasPlacement(node, bias, g.og, g.groups)] };
}

/**
 * A weight matrix with one row of `k` values per output column (OHWI, OIHW, FullyConnected's
 * [out][depth]) into the packed operand of each group: output j of group `group` is column j
 * of B, in panel floor(j / PANEL), at row `column(within)` for the value at `within` of its row.
 * Written a row's run at a time: the row's place is worked out once, and the rows of the packed
 * operand come from a table of `k` (a per-value index function cost seconds on a large network,
 * in every measured process).
 */
export function packedPlacement(constant: string, k: number, perGroup: number, column: (within: number) => number): Placement {
  const groupFloats = packedFloats(k, perGroup);
  const offsets = new Int32Array(k);
  for (let within = 0; within < k; within++) offsets[within] = column(within) * PANEL;
  return {
    constant,
    write: (values, at, target) => {
      let e = at;
      let i = 0;
      while (i < values.length) {
        const o = Math.floor(e / k);
        const within = e - o * k;
        const group = Math.floor(o / perGroup);
        const j = o - group * perGroup;
        const start = group * groupFloats + Math.floor(j / PANEL) * PANEL * k + (j % PANEL);
        const n = Math.min(k - within, values.length - i);
        for (let c = 0; c < n; c++) target[start + offsets[within + c]] = values[i + c];
        i += n;
        e += n;
      }
    },
  };
}

/**
 * A 3x3 convolution's taps as Winograd F(2x2, 3x3) reads them (graph/layer-memory.ts): for
 * each of the 16 positions p, U[p] = (G g G^T)[p] of every (output, input) channel pair's
 * 3x3 taps g, packed as the matrix product's operand of c rows and o columns, one position
 * after the other. G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]. A transform needs an output
 * channel's taps whole, so each output channel's row of 9c values is gathered as its runs come
 * (in any sizes) and transformed once complete: in float64, then rounded to float32, the same
 * values however the runs were cut.
 */
function winogradPlacement(constant: string, g: ConvGeometry, ohwi: boolean): Placement {
  const k = 9 * g.c;
  const packed = packedFloats(g.c, g.o);
  const pending = new Map<number, { readonly taps: Float64Array; filled: number }>();
  const half = new Float64Array(12);
  // Written out, no array a channel pair: this runs for every tap, in every measured process (VGG-19: 20 million).
  const transform = (oc: number, taps: Float64Array, target: Float32Array): void => {
    const column = Math.floor(oc / PANEL) * PANEL * g.c + (oc % PANEL);
    // Tap (ky, kx) of input channel ci: OHWI rows are [ky][kx][ci], OIHW ones [ci][ky][kx].
    const tapStep = ohwi ? g.c : 1;
    for (let ci = 0; ci < g.c; ci++) {
      const first = ohwi ? ci : ci * 9;
      // G g: 4 rows of 3, a column (kx) at a time.
      for (let kx = 0; kx < 3; kx++) {
        const g0 = taps[first + kx * tapStep];
        const g1 = taps[first + (3 + kx) * tapStep];
        const g2 = taps[first + (6 + kx) * tapStep];
        half[kx] = g0;
        half[3 + kx] = (g0 + g1 + g2) / 2;
        half[6 + kx] = (g0 - g1 + g2) / 2;
        half[9 + kx] = g2;
      }
      // (G g) G^T: the 4 columns of each of its rows, position 4a + b.
      const at = column + ci * PANEL;
      for (let a = 0; a < 4; a++) {
        const h0 = half[3 * a];
        const h1 = half[3 * a + 1];
        const h2 = half[3 * a + 2];
        const row = at + 4 * a * packed;
        target[row] = h0;
        target[row + packed] = (h0 + h1 + h2) / 2;
        target[row + 2 * packed] = (h0 - h1 + h2) / 2;
        target[row + 3 * packed] = h2;
      }
    }
  };
  return {
    constant,
    write: (values, at, target) => {
      let i = 0;
      while (i < values.length) {
        const e = at + i;
        const oc = Math.floor(e / k);
        const within = e - oc * k;
        const row = pending.get(oc) ?? { taps: new Float64Array(k), filled: 0 };
        const n = Math.min(k - within, values.length - i);
        for (let c = 0; c < n; c++) row.taps[within + c] = values[i + c];
        row.filled += n;
        if (row.filled >= k) {
          pending.delete(oc);
          transform(oc, row.taps, target);
        } else pending.set(oc, row);
        i += n;
      }
    },
  };
}

/** A bias of `perGroup * groups` values, each group's padded to whole panels, from float `at` on. */
function biasPlacement(node: Node, at: number, perGroup: number, groups: number): Placement[] {
  const name = node.inputs[2];
  if (!name) return [];
  if (groups === 1) return [raw(name, at)];
  const padded = paddedBiasFloats(perGroup);
  return [{ constant: name, write: (values, from, target) => scatter(values, from, target, (e) => at + Math.floor(e / perGroup) * padded + (e % perGroup)) }];
}

/** A node's constants raw, one after the other, in input order. */
function rawWeights(graph: Graph, node: Node): NodeWeights {
  const placements: Placement[] = [];
  let floats = 0;
  for (const name of node.inputs) {
    const tensor = graph.tensors.get(name);
    if (!tensor?.constant) continue;
    placements.push(raw(name, floats));
    floats += elementCount(tensor.shape);
  }
  return { floats, placements };
}

function raw(constant: string, base: number): Placement {
  return { constant, write: (values, at, target) => target.set(values, base + at) };
}

function scatter(values: Float32Array, at: number, target: Float32Array, place: (e: number) => number): void {
  for (let k = 0; k < values.length; k++) target[place(at + k)] = values[k];
}

function shapeOf(graph: Graph, name: string): readonly number[] {
  const tensor = graph.tensors.get(name);
  if (tensor === undefined) throw new BackendError(`tensor ${name} is not in the graph.`);
  return tensor.shape;
}
