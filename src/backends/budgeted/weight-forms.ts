import { elementCount, type Graph, type Node } from '../../graph/ir.ts';
import { convGeometryOf, convPath, GEMM_PANEL, layerMemory, packedFloats, paddedBiasFloats } from '../../graph/layer-memory.ts';
import type { ConvGeometry } from '../../graph/window-geometry.ts';
import { BackendError } from '../backend-error.ts';
import { packB, PANEL } from '../cpu/kernels/gemm.ts';

// The records are sized with the graph layer's panel width; the packing here must agree.
if (PANEL !== GEMM_PANEL) throw new Error(`the CPU GEMM packs panels of ${PANEL} columns but the budgeted records assume ${GEMM_PANEL}.`);

/**
 * A layer's weights in the form the budgeted executor's kernels read them from its one
 * buffer (graph/layer-memory.ts says the form and its size): what the weights file holds
 * for the layer, so that loading is one read with nothing derived afterwards (FlexNN's
 * weight pre-transformation). Returns exactly `layerMemory(graph, node).weightBytes / 4`
 * values; the graph's constants must carry their values.
 */
export function weightForm(graph: Graph, node: Node): Float32Array {
  const bytes = layerMemory(graph, node).weightBytes;
  const out = new Float32Array(bytes / 4);
  if (node.op === 'Conv') {
    const g = convGeometryOf(graph, node);
    const weights = valuesOf(graph, node, node.inputs[1]);
    const bias = node.inputs[2] ? valuesOf(graph, node, node.inputs[2]) : undefined;
    const path = convPath(g);
    if (path === 'depthwise3x3' || path === 'depthwise') {
      // Taps [kh*kw][channels] (TFLite's 1HWO order), then the bias.
      const taps = g.kh * g.kw;
      for (let o = 0; o < g.o; o++) {
        for (let t = 0; t < taps; t++) out[t * g.o + o] = node.weightLayout === '1HWO' ? weights[t * g.o + o] : weights[o * taps + t];
      }
      if (bias) out.set(bias, taps * g.o);
    } else {
      // Per group the packed operand B[(ky*kw + kx)*cg + ci, j] = W(g*og + j, ky, kx, ci), then the biases.
      const ohwi = toOhwi(weights, node.weightLayout, g);
      const k = g.kh * g.kw * g.cg;
      const biasAt = g.groups * packedFloats(k, g.og);
      for (let group = 0; group < g.groups; group++) {
        packB(ohwi, group * g.og * k, k, g.og, 1, k, 1, out.subarray(group * packedFloats(k, g.og)));
        if (bias) out.set(bias.subarray(group * g.og, (group + 1) * g.og), biasAt + group * paddedBiasFloats(g.og));
      }
    }
  } else if (node.op === 'FullyConnected') {
    const [outFeatures, depth] = graph.tensors.get(node.inputs[1])?.shape ?? [0, 0];
    packB(valuesOf(graph, node, node.inputs[1]), 0, depth, outFeatures, 1, depth, 1, out);
    if (node.inputs[2]) out.set(valuesOf(graph, node, node.inputs[2]), packedFloats(depth, outFeatures));
  } else {
    // Any other op's constants, raw, one after the other.
    let at = 0;
    for (const name of node.inputs) {
      const tensor = graph.tensors.get(name);
      if (!tensor?.constant) continue;
      out.set(valuesOf(graph, node, name), at);
      at += elementCount(tensor.shape);
    }
  }
  return out;
}

function valuesOf(graph: Graph, node: Node, name: string): Float32Array {
  const data = graph.tensors.get(name)?.data;
  if (!(data instanceof Float32Array)) throw new BackendError(`node ${node.name}: constant ${name} has no float32 values to write to the weights file.`);
  return data;
}

/** Convolution weights in OHWI [O][kh][kw][cg], whatever their layout. */
function toOhwi(weights: Float32Array, layout: Extract<Node, { op: 'Conv' }>['weightLayout'], g: ConvGeometry): Float32Array {
  if (layout === 'OHWI') return weights;
  if (layout === '1HWO') throw new BackendError('1HWO weights belong to depthwise convolutions.');
  const { o: outChannels, kh, kw, cg } = g;
  const out = new Float32Array(weights.length);
  for (let o = 0; o < outChannels; o++) {
    for (let ci = 0; ci < cg; ci++) {
      for (let ky = 0; ky < kh; ky++) {
        for (let kx = 0; kx < kw; kx++) out[((o * kh + ky) * kw + kx) * cg + ci] = weights[((o * cg + ci) * kh + ky) * kw + kx];
      }
    }
  }
  return out;
}
