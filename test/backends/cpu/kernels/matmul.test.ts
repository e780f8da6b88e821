import { describe, expect, it } from 'vitest';
import type { Activation } from '../../../../src/graph/ir.ts';
import { ACTIVATIONS, KERNEL_ENGINES, activate, count, expectClose, randomArray, rng, runKernel, useKernelEngine } from './helpers.ts';

function referenceFc(x: Float32Array, weights: Float32Array, bias: Float32Array | undefined, rows: number, depth: number, outFeatures: number, activation: Activation): Float64Array {
  const out = new Float64Array(rows * outFeatures);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < outFeatures; j++) {
      let sum = bias ? bias[j] : 0;
      for (let k = 0; k < depth; k++) sum += x[r * depth + k] * weights[j * depth + k];
      out[r * outFeatures + j] = activate(sum, activation);
    }
  }
  return out;
}

/** numpy matmul for rank >= 2 by its definition, batch dimensions broadcast. */
function referenceMatMul(a: Float32Array, aShape: readonly number[], b: Float32Array, bShape: readonly number[]): { out: Float64Array; shape: number[] } {
  const M = aShape[aShape.length - 2];
  const K = aShape[aShape.length - 1];
  const N = bShape[bShape.length - 1];
  const rank = Math.max(aShape.length, bShape.length) - 2;
  const ab = [...new Array<number>(rank - (aShape.length - 2)).fill(1), ...aShape.slice(0, -2)];
  const bb = [...new Array<number>(rank - (bShape.length - 2)).fill(1), ...bShape.slice(0, -2)];
  const batch = ab.map((d, k) => Math.max(d, bb[k]));
  const batches = count(batch);
  const out = new Float64Array(batches * M * N);
  for (let t = 0; t < batches; t++) {
    // Batch index digits -> matrix index of A and B.
    let rest = t;
    const digits = new Array<number>(rank);
    for (let k = rank - 1; k >= 0; k--) {
      digits[k] = rest % batch[k];
      rest = Math.floor(rest / batch[k]);
    }
    let ia = 0;
    let ib = 0;
    for (let k = 0; k < rank; k++) {
      ia = ia * ab[k] + (ab[k] === 1 ? 0 : digits[k]);
      ib = ib * bb[k] + (bb[k] === 1 ? 0 : digits[k]);
    }
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += a[ia * M * K + i * K + k] * b[ib * K * N + k * N + j];
        out[t * M * N + i * N + j] = sum;
      }
    }
  }
  return { out, shape: [...batch, M, N] };
}

for (const engine of KERNEL_ENGINES) {
  describe(`${engine.title} engine`, () => {
    useKernelEngine(engine);

    describe('FullyConnected', () => {
      it('deep rows (2050 values, summed in float32 by the SIMD kernel): still within 1e-5', () => {
        const random = rng(4);
        const [rows, depth, outFeatures] = [5, 2050, 21];
        const x = randomArray(rows * depth, random);
        const weights = randomArray(outFeatures * depth, random);
        const bias = randomArray(outFeatures, random);
        const got = runKernel({ op: 'FullyConnected', outFeatures, activation: 'none', keepDims: false }, [x, weights, bias], [[rows, depth], [outFeatures, depth], [outFeatures]]);
        expectClose(got.output, referenceFc(x, weights, bias, rows, depth, outFeatures, 'none'), 1e-5, 'deep FC');
      });

      it('rows of the input times the transposed [out, in] weights, plus bias, activated', () => {
        const random = rng(3);
        for (const [inShape, outFeatures, keepDims] of [
          [[1, 10], 7, false],
          [[3, 5], 4, false],
          [[2, 3, 8], 9, true],
          [[2, 3, 8], 9, false],
          [[1, 1, 1, 33], 1001 % 97, false],
          [[9, 300], 21, false],
        ] as const) {
          for (const activation of ACTIVATIONS) {
            for (const withBias of [true, false]) {
              const depth = inShape[inShape.length - 1];
              const rows = count(inShape) / depth;
              const x = randomArray(count(inShape), random);
              const weights = randomArray(outFeatures * depth, random);
              const bias = withBias ? randomArray(outFeatures, random) : undefined;
              const got = runKernel({ op: 'FullyConnected', outFeatures, activation, keepDims }, [x, weights, bias], [inShape, [outFeatures, depth], withBias ? [outFeatures] : []]);
              expect(got.shape).toEqual(keepDims ? [...inShape.slice(0, -1), outFeatures] : [rows, outFeatures]);
              expectClose(got.output, referenceFc(x, weights, bias, rows, depth, outFeatures, activation), 1e-5, `FC [${inShape}] -> ${outFeatures} ${activation}`);
            }
          }
        }
      });
    });

    describe('MatMul', () => {
      it('2-D and batched products, batch dimensions broadcast either way', () => {
        const random = rng(5);
        for (const [aShape, bShape] of [
          [
            [3, 4],
            [4, 5],
          ],
          [
            [1, 1],
            [1, 1],
          ],
          [
            [7, 9],
            [9, 13],
          ],
          [
            [2, 3, 4],
            [2, 4, 6],
          ],
          [
            [2, 3, 4],
            [4, 6],
          ],
          [
            [3, 4],
            [2, 4, 6],
          ],
          [
            [2, 1, 5, 3],
            [1, 3, 3, 2],
          ],
          [
            [4, 1, 2, 3],
            [3, 1],
          ],
        ] as const) {
          const a = randomArray(count(aShape), random);
          const b = randomArray(count(bShape), random);
          const want = referenceMatMul(a, aShape, b, bShape);
          const got = runKernel({ op: 'MatMul' }, [a, b], [aShape, bShape]);
          expect(got.shape).toEqual(want.shape);
          expectClose(got.output, want.out, 1e-5, `MatMul [${aShape}] x [${bShape}]`);
        }
      });
    });

    describe('Gemm', () => {
      it('alpha * op(A) * op(B) + beta * C for every transpose and every C that broadcasts', () => {
        const random = rng(9);
        const M = 5;
        const K = 6;
        const N = 7;
        for (const transA of [false, true]) {
          for (const transB of [false, true]) {
            for (const cShape of [undefined, [], [1], [N], [1, N], [M, 1], [M, N], [1, 1]] as const) {
              for (const [alpha, beta] of [
                [1, 1],
                [0.5, -2],
                [2, 0],
              ]) {
                const aShape = transA ? [K, M] : [M, K];
                const bShape = transB ? [N, K] : [K, N];
                const a = randomArray(M * K, random);
                const b = randomArray(K * N, random);
                const c = cShape === undefined ? undefined : randomArray(count(cShape), random);
                const A = (i: number, k: number): number => (transA ? a[k * M + i] : a[i * K + k]);
                const B = (k: number, j: number): number => (transB ? b[j * K + k] : b[k * N + j]);
                const C = (i: number, j: number): number => {
                  if (c === undefined || cShape === undefined) return 0;
                  if (cShape.length === 0) return c[0];
                  if (cShape.length === 1) return c[cShape[0] === 1 ? 0 : j];
                  return c[(cShape[0] === 1 ? 0 : i) * cShape[1] + (cShape[1] === 1 ? 0 : j)];
                };
                const want = new Float64Array(M * N);
                for (let i = 0; i < M; i++) {
                  for (let j = 0; j < N; j++) {
                    let sum = 0;
                    for (let k = 0; k < K; k++) sum += A(i, k) * B(k, j);
                    want[i * N + j] = alpha * sum + beta * C(i, j);
                  }
                }
                const got = runKernel({ op: 'Gemm', transA, transB, alpha, beta }, [a, b, c], [aShape, bShape, cShape ?? []]);
                expect(got.shape).toEqual([M, N]);
                expectClose(got.output, want, 1e-5, `Gemm transA=${transA} transB=${transB} C=[${cShape}] alpha=${alpha} beta=${beta}`);
              }
            }
          }
        }
      });
    });
  });
}
