import type { Layout, Node, Padding } from './ir.ts';
import { samePadding, spatialAxes } from './shape-inference.ts';

/**
 * Window geometry (convolutions, pools) as every kernel reads it and as the graph layer
 * sizes a layer's scratch (layer-memory.ts): the CPU loops, the WGSL shaders and the
 * budgeted executor must read shapes, padding and groups the same way, or their outputs
 * and memory part. Failures throw a plain Error that names the node; each backend's kernels
 * let it through as their own. (src/backends/kernel-geometry.ts re-exports this.)
 */

/** A 4-D activation's dimensions, whatever the layout. */
export interface Dims4 {
  readonly n: number;
  readonly h: number;
  readonly w: number;
  readonly c: number;
}

export function dims4(node: Node, shape: readonly number[], layout: Layout): Dims4 {
  if (shape.length !== 4) throw nodeError(node, `expected a 4-D tensor, got [${shape.join(', ')}].`);
  const axes = spatialAxes(layout);
  return { n: shape[0], h: shape[axes.height], w: shape[axes.width], c: shape[axes.channels] };
}

/** The padding actually applied before the first row and column: [top, left]. */
export function padBefore(padding: Padding, inH: number, inW: number, kh: number, kw: number, sh: number, sw: number, dh: number, dw: number): [number, number] {
  switch (padding.kind) {
    case 'valid':
      return [0, 0];
    case 'same':
      return [samePadding(inH, kh, sh, dh)[0], samePadding(inW, kw, sw, dw)[0]];
    case 'explicit':
      return [padding.pads[0], padding.pads[1]];
  }
}

/** Everything a convolution needs, resolved once per call. */
export interface ConvGeometry {
  readonly n: number;
  readonly h: number;
  readonly w: number;
  readonly c: number;
  readonly oh: number;
  readonly ow: number;
  readonly o: number;
  readonly kh: number;
  readonly kw: number;
  readonly sh: number;
  readonly sw: number;
  readonly dh: number;
  readonly dw: number;
  readonly pt: number;
  readonly pl: number;
  readonly groups: number;
  /** Input channels per group. */
  readonly cg: number;
  /** Output channels per group. */
  readonly og: number;
}

type ConvNode = Extract<Node, { op: 'Conv' }>;

export function convGeometry(node: ConvNode, inputShape: readonly number[], outputShape: readonly number[], layout: Layout): ConvGeometry {
  const inD = dims4(node, inputShape, layout);
  const outD = dims4(node, outputShape, layout);
  const groups = node.groups;
  if (!(groups >= 1) || inD.c % groups !== 0 || outD.c % groups !== 0) {
    throw nodeError(node, `${inD.c} input and ${outD.c} output channels do not split into ${groups} groups.`);
  }
  if (outD.n !== inD.n) throw nodeError(node, `the output batch ${outD.n} differs from the input's ${inD.n}.`);
  const [kh, kw] = node.kernel;
  const [sh, sw] = node.strides;
  const [dh, dw] = node.dilations;
  const [pt, pl] = padBefore(node.padding, inD.h, inD.w, kh, kw, sh, sw, dh, dw);
  return { n: inD.n, h: inD.h, w: inD.w, c: inD.c, oh: outD.h, ow: outD.w, o: outD.c, kh, kw, sh, sw, dh, dw, pt, pl, groups, cg: inD.c / groups, og: outD.c / groups };
}

function nodeError(node: Node, message: string): Error {
  return new Error(`node ${node.name} (${node.op}): ${message}`);
}
