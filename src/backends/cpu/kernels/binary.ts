import type { Node } from '../../../graph/ir.ts';
import type { Kernel, KernelCall } from '../kernel.ts';
import { applyActivation } from './activation.ts';
import { checkLength, count, input } from './common.ts';
import { broadcastStrides } from '../../kernel-geometry.ts';

type BinaryNode = Extract<Node, { op: 'Add' | 'Mul' }>;

/**
 * Add and Mul with numpy broadcasting, then the fused activation (a second pass: see
 * clampInto). Fast paths: equal shapes; a
 * scalar operand; an operand that varies along one contiguous run of axes and repeats
 * around it (a per-channel vector in NHWC: [C] against [N, H, W, C]; in NCHW: [1, C, 1, 1]
 * against [N, C, H, W]). Anything else walks the output with per-operand strides.
 */
export const add: Kernel = (call) => binary(call, false);
export const mul: Kernel = (call) => binary(call, true);

function binary(call: KernelCall, isMul: boolean): void {
  const node = call.node as BinaryNode;
  let a = input(call, 0);
  let b = input(call, 1);
  let aShape = call.inputShapes[0];
  let bShape = call.inputShapes[1];
  const out = call.output;
  const outShape = call.outputShape;
  checkLength(call, a, aShape, 'input 0');
  checkLength(call, b, bShape, 'input 1');
  checkLength(call, out, outShape, 'output');
  const n = out.length;
  // Both ops commute: let `a` be the operand with the full shape when there is one.
  if (a.length !== n && b.length === n) {
    [a, b] = [b, a];
    [aShape, bShape] = [bShape, aShape];
  }
  if (a.length === n && b.length === n) {
    if (isMul) for (let i = 0; i < n; i++) out[i] = a[i] * b[i];
    else for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
  } else if (a.length === n && b.length === 1) {
    const s = b[0];
    if (isMul) for (let i = 0; i < n; i++) out[i] = a[i] * s;
    else for (let i = 0; i < n; i++) out[i] = a[i] + s;
  } else {
    const inner = a.length === n ? blockInner(bShape, outShape) : -1;
    if (inner === 1) {
      const nb = b.length;
      for (let base = 0; base < n; base += nb) {
        if (isMul) for (let j = 0; j < nb; j++) out[base + j] = a[base + j] * b[j];
        else for (let j = 0; j < nb; j++) out[base + j] = a[base + j] + b[j];
      }
    } else if (inner > 1) {
      const nb = b.length;
      let i = 0;
      while (i < n) {
        for (let j = 0; j < nb; j++) {
          const s = b[j];
          const end = i + inner;
          if (isMul) for (; i < end; i++) out[i] = a[i] * s;
          else for (; i < end; i++) out[i] = a[i] + s;
        }
      }
    } else {
      general(call, a, aShape, b, bShape, isMul);
    }
  }
  applyActivation(out, node.activation);
}

/**
 * When `shape` (broadcast against the full `outShape`) equals outShape on one contiguous run
 * of axes and is 1 elsewhere, the count of output elements each of its values covers in a
 * row (the product of outShape after the run); otherwise -1.
 */
export function blockInner(shape: readonly number[], outShape: readonly number[]): number {
  const rank = outShape.length;
  const offset = rank - shape.length;
  if (offset < 0) return -1;
  const dim = (k: number): number => (k < offset ? 1 : shape[k - offset]);
  let first = -1;
  let last = -1;
  for (let k = 0; k < rank; k++) {
    if (dim(k) !== 1) {
      if (first < 0) first = k;
      last = k;
    }
  }
  if (first < 0) return -1;
  for (let k = first; k <= last; k++) if (dim(k) !== outShape[k]) return -1;
  let inner = 1;
  for (let k = last + 1; k < rank; k++) inner *= outShape[k];
  return inner;
}

function general(call: KernelCall, a: Float32Array, aShape: readonly number[], b: Float32Array, bShape: readonly number[], isMul: boolean): void {
  const out = call.output;
  const outShape = call.outputShape;
  const rank = outShape.length;
  if (rank === 0) {
    out[0] = isMul ? a[0] * b[0] : a[0] + b[0];
    return;
  }
  const sa = broadcastStrides(aShape, outShape);
  const sb = broadcastStrides(bShape, outShape);
  const last = rank - 1;
  const len = outShape[last];
  const ia = sa[last];
  const ib = sb[last];
  const rows = count(outShape) / Math.max(1, len);
  const index = new Array<number>(rank).fill(0);
  let pa = 0;
  let pb = 0;
  let o = 0;
  for (let row = 0; row < rows; row++) {
    let qa = pa;
    let qb = pb;
    if (isMul) for (let t = 0; t < len; t++, qa += ia, qb += ib, o++) out[o] = a[qa] * b[qb];
    else for (let t = 0; t < len; t++, qa += ia, qb += ib, o++) out[o] = a[qa] + b[qb];
    for (let d = last - 1; d >= 0; d--) {
      pa += sa[d];
      pb += sb[d];
      if (++index[d] < outShape[d]) break;
      pa -= sa[d] * outShape[d];
      pb -= sb[d] * outShape[d];
      index[d] = 0;
    }
  }
}
