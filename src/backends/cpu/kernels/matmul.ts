import type { Node } from '../../../graph/ir.ts';
import type { Kernel, KernelCall, PreparedWeights, WeightPreparer } from '../kernel.ts';
import { clampRange, finishActivation } from './activation.ts';
import { checkLength, count, input, ScratchF32, WeightCache, zerosF32 } from './common.ts';
import { gemm, packB, packedLength, type PackedB } from './gemm.ts';
import { broadcastStrides } from '../../kernel-geometry.ts';

type FullyConnectedNode = Extract<Node, { op: 'FullyConnected' }>;
type GemmNode = Extract<Node, { op: 'Gemm' }>;

/** FullyConnected's weights packed as the GEMM's B operand. */
interface FullyConnectedWeights extends PreparedWeights {
  readonly packed: PackedB;
}

const fcCache = new WeightCache<FullyConnectedWeights>();

/** The weights [outFeatures, inFeatures] (input 1), checked, packed as B[k, j] = W[j, k]. */
function packFullyConnected(call: KernelCall): FullyConnectedWeights {
  const weights = input(call, 1);
  const [outFeatures, depth] = fcShape(call);
  checkLength(call, weights, call.inputShapes[1], 'weights');
  const packed = packB(weights, 0, depth, outFeatures, 1, depth);
  return { replaces: [1], bytes: packed.data.byteLength, packed };
}

function fcShape(call: KernelCall): readonly number[] {
  const wShape = call.inputShapes[1];
  if (wShape.length !== 2) throw new Error(`node ${call.node.name} (FullyConnected): weights must be 2-D, got [${wShape.join(', ')}].`);
  return wShape;
}

/** FullyConnected's WeightPreparer. */
export const prepareFullyConnected: WeightPreparer = packFullyConnected;

/**
 * FullyConnected (TFLite): weights [outFeatures, inFeatures], optional bias (input 2), the
 * input taken as rows of inFeatures values; fused activation. Weights are packed once.
 */
export const fullyConnected: Kernel = (call) => {
  const node = call.node as FullyConnectedNode;
  const x = input(call, 0);
  const bias = call.inputs[2];
  const [outFeatures, depth] = fcShape(call);
  checkLength(call, call.output, call.outputShape, 'output');
  if (depth === 0 || x.length % depth !== 0) throw new Error(`node ${node.name} (FullyConnected): ${x.length} input values do not split into rows of ${depth}.`);
  const rows = x.length / depth;
  if (call.output.length !== rows * outFeatures) throw new Error(`node ${node.name} (FullyConnected): the output holds ${call.output.length} values, expected ${rows}x${outFeatures}.`);
  if (bias !== undefined && bias.length !== outFeatures) throw new Error(`node ${node.name} (FullyConnected): bias has ${bias.length} elements, expected ${outFeatures}.`);
  const { packed } = (call.prepared as FullyConnectedWeights | undefined) ?? fcCache.get(input(call, 1), `fc:${outFeatures}:${depth}`, () => packFullyConnected(call));
  const { lo, hi } = clampRange(node.activation);
  gemm(x, 0, depth, rows, packed, bias ?? zerosF32(outFeatures), 0, call.output, 0, outFeatures, lo, hi);
  finishActivation(call.output, node.activation);
};

const packScratch = new ScratchF32();
const transposeScratch = new ScratchF32();
const biasScratch = new ScratchF32();

/**
 * MatMul (numpy semantics for rank >= 2): [..., M, K] x [..., K, N] with the batch
 * dimensions broadcast. B is packed per call (it may be an activation); when B's batch
 * does not vary, it is packed once for all batches.
 */
export const matMul: Kernel = (call) => {
  const a = input(call, 0);
  const b = input(call, 1);
  const aShape = call.inputShapes[0];
  const bShape = call.inputShapes[1];
  const outShape = call.outputShape;
  if (aShape.length < 2 || bShape.length < 2) throw new Error(`node ${call.node.name} (MatMul): inputs must have rank 2 or more.`);
  checkLength(call, a, aShape, 'input 0');
  checkLength(call, b, bShape, 'input 1');
  checkLength(call, call.output, outShape, 'output');
  const M = aShape[aShape.length - 2];
  const K = aShape[aShape.length - 1];
  const N = bShape[bShape.length - 1];
  if (bShape[bShape.length - 2] !== K) throw new Error(`node ${call.node.name} (MatMul): inner dimensions ${K} and ${bShape[bShape.length - 2]} differ.`);
  const batchRank = outShape.length - 2;
  const batchShape = outShape.slice(0, batchRank);
  const batches = count(batchShape);
  // Matrix-index strides of A and B per output batch dimension (0 where broadcast).
  const aStrides = broadcastStrides(aShape.slice(0, -2), batchShape);
  const bStrides = broadcastStrides(bShape.slice(0, -2), batchShape);
  const bVaries = bStrides.some((s, k) => s !== 0 && batchShape[k] > 1);
  const packedData = packScratch.get(packedLength(K, N));
  const zeros = zerosF32(N);
  const index = new Array<number>(batchRank).fill(0);
  let packed: PackedB | undefined;
  let aMatrix = 0;
  let bMatrix = 0;
  for (let batch = 0; batch < batches; batch++) {
    if (packed === undefined || bVaries) packed = packB(b, bMatrix * K * N, K, N, N, 1, 1, packedData);
    gemm(a, aMatrix * M * K, K, M, packed, zeros, 0, call.output, batch * M * N, N, -Infinity, Infinity);
    // Next batch index (odometer), moving the matrix indices of A and B with it.
    for (let d = batchRank - 1; d >= 0; d--) {
      aMatrix += aStrides[d];
      bMatrix += bStrides[d];
      if (++index[d] < batchShape[d]) break;
      aMatrix -= aStrides[d] * batchShape[d];
      bMatrix -= bStrides[d] * batchShape[d];
      index[d] = 0;
    }
  }
};

/**
 * Gemm (ONNX): Y = alpha * op(A) * op(B) + beta * C, op = transpose when transA / transB;
 * A, B 2-D; C optional and broadcast to [M, N] (rank 0, 1 or 2).
 */
export const gemmOp: Kernel = (call) => {
  const node = call.node as GemmNode;
  const a = input(call, 0);
  const b = input(call, 1);
  const c = call.inputs[2];
  const [ar, ac] = call.inputShapes[0];
  const [br, bc] = call.inputShapes[1];
  checkLength(call, a, call.inputShapes[0], 'A');
  checkLength(call, b, call.inputShapes[1], 'B');
  checkLength(call, call.output, call.outputShape, 'output');
  const [M, K] = node.transA ? [ac, ar] : [ar, ac];
  const N = node.transB ? br : bc;
  if ((node.transB ? bc : br) !== K) throw new Error(`node ${node.name} (Gemm): inner dimensions ${K} and ${node.transB ? bc : br} differ.`);
  let rows = a;
  if (node.transA) {
    rows = transposeScratch.get(M * K);
    for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) rows[i * K + k] = a[k * M + i];
  }
  const packed = node.transB ? packB(b, 0, K, N, 1, K, node.alpha, packScratch.get(packedLength(K, N))) : packB(b, 0, K, N, N, 1, node.alpha, packScratch.get(packedLength(K, N)));
  const out = call.output;
  // C with one row (or none): a bias per column, added inside the GEMM; otherwise afterwards.
  const cShape = c === undefined ? [] : call.inputShapes[2];
  const cRows = cShape.length === 2 ? cShape[0] : 1;
  const cCols = cShape.length === 0 ? 1 : cShape[cShape.length - 1];
  if (c !== undefined) {
    if (cShape.length > 2 || (cRows !== 1 && cRows !== M) || (cCols !== 1 && cCols !== N) || c.length !== cRows * cCols) {
      throw new Error(`node ${node.name} (Gemm): C [${cShape.join(', ')}] does not broadcast to [${M}, ${N}].`);
    }
  }
  const beta = node.beta;
  let bias = zerosF32(N);
  if (c !== undefined && cRows === 1 && beta !== 0) {
    bias = biasScratch.get(N);
    for (let j = 0; j < N; j++) bias[j] = beta * c[cCols === 1 ? 0 : j];
  }
  gemm(rows, 0, K, M, packed, bias, 0, out, 0, N, -Infinity, Infinity);
  if (c !== undefined && cRows !== 1 && beta !== 0) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) out[i * N + j] += beta * c[i * cCols + (cCols === 1 ? 0 : j)];
    }
  }
};
