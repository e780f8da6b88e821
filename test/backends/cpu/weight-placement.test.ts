import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeWeights, packedPlacement } from '../../../src/backends/cpu/weight-placement.ts';
import { PANEL } from '../../../src/backends/cpu/kernels/gemm.ts';
import { weightedGraph } from '../../../src/backends/run-data.ts';
import type { Graph, Node } from '../../../src/graph/ir.ts';
import { layerMemory, packedFloats } from '../../../src/graph/layer-memory.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';

/** Where value e of a [groups * perGroup][k] matrix goes in the packed operands, one value at a time: the definition. */
function packedIndex(e: number, k: number, perGroup: number, column: (within: number) => number): number {
  const o = Math.floor(e / k);
  const group = Math.floor(o / perGroup);
  const j = o - group * perGroup;
  return group * packedFloats(k, perGroup) + Math.floor(j / PANEL) * PANEL * k + column(e % k) * PANEL + (j % PANEL);
}

describe('a weight matrix packed into GEMM panels', () => {
  it('puts every value where the definition says, whatever runs the values come in', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 }),
        (k, perGroup, groups, reversed, cuts) => {
          const column = reversed ? (within: number) => k - 1 - within : (within: number) => within;
          const total = k * perGroup * groups;
          const values = Float32Array.from({ length: total }, (_, e) => e + 1);
          const expected = new Float32Array(groups * packedFloats(k, perGroup));
          for (let e = 0; e < total; e++) expected[packedIndex(e, k, perGroup, column)] = values[e];
          const target = new Float32Array(expected.length);
          const placement = packedPlacement('w', k, perGroup, column);
          // The values arrive in runs of the given lengths (a seeded stream, a file), the last run whatever is left.
          let at = 0;
          for (const cut of [...cuts, total]) {
            const end = Math.min(total, at + cut);
            placement.write(values.subarray(at, end), at, target);
            at = end;
            if (at === total) break;
          }
          expect(target).toEqual(expected);
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});

/** A 3x3 convolution of c input and o output channels (the Winograd path), OHWI weights seeded; or the same weights transposed to OIHW. */
function winogradConv(c: number, o: number, layout: 'OHWI' | 'OIHW'): { graph: Graph; node: Node; taps: (oc: number, ci: number, t: number) => number } {
  const b = new NetworkBuilder('one-winograd', 'float32');
  const x = b.input('x', [1, 6, 6, c]);
  const graph = weightedGraph(b.build([b.conv('conv', x, { out: o, kernel: 3 })]), 'seeded', 11);
  const node = graph.nodes[0] as Node;
  const ohwi = graph.tensors.get(node.inputs[1])!.data as Float32Array;
  const taps = (oc: number, ci: number, t: number): number => ohwi[(oc * 9 + t) * c + ci];
  if (layout === 'OHWI') return { graph, node, taps };
  const oihw = Float32Array.from({ length: ohwi.length }, (_, e) => taps(Math.floor(e / (9 * c)), Math.floor(e / 9) % c, e % 9));
  const tensors = new Map(graph.tensors);
  tensors.set(node.inputs[1], { ...graph.tensors.get(node.inputs[1])!, shape: [o, c, 3, 3], data: oihw });
  const transposed = { ...node, weightLayout: 'OIHW' } as Node;
  return { graph: { ...graph, tensors, nodes: [transposed] }, node: transposed, taps };
}

describe("a 3x3 convolution's taps in Winograd's form", () => {
  it('are G g G^T of each channel pair, each position packed as the GEMM reads it, whatever runs the values come in (fast-check)', () => {
    const G = [
      [1, 0, 0],
      [0.5, 0.5, 0.5],
      [0.5, -0.5, 0.5],
      [0, 0, 1],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(16, 20, 24),
        fc.integer({ min: 1, max: 5 }).map((k) => 4 * k),
        fc.constantFrom('OHWI' as const, 'OIHW' as const),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 8 }),
        (c, o, layout, cuts) => {
          const { graph, node, taps } = winogradConv(c, o, layout);
          expect(layerMemory(graph, node).path).toBe('winograd3x3');
          const form = nodeWeights(graph, node);
          const whole = new Float32Array(form.floats);
          for (const placement of form.placements) placement.write(graph.tensors.get(placement.constant)!.data as Float32Array, 0, whole);
          const packed = packedFloats(c, o);
          for (let oc = 0; oc < o; oc++) {
            for (let ci = 0; ci < c; ci++) {
              for (let p = 0; p < 16; p++) {
                let want = 0;
                for (let t = 0; t < 9; t++) want += G[p >> 2][Math.floor(t / 3)] * G[p & 3][t % 3] * taps(oc, ci, t);
                const got = whole[p * packed + Math.floor(oc / PANEL) * PANEL * c + ci * PANEL + (oc % PANEL)];
                if (!(Math.abs(got - want) <= 1e-6 * (Math.abs(want) + 1))) throw new Error(`${layout} position ${p}, channels ${oc}, ${ci}: ${got}, by the definition ${want}`);
              }
            }
          }
          // The bias after the 16 positions.
          expect([...whole.subarray(16 * packed, 16 * packed + o)]).toEqual([...(graph.tensors.get(node.inputs[2])!.data as Float32Array)]);
          // The taps in runs of the given lengths: the very same form.
          const weights = graph.tensors.get(node.inputs[1])!.data as Float32Array;
          const runs = new Float32Array(form.floats);
          runs.set(whole.subarray(16 * packed), 16 * packed);
          const taps16 = form.placements.find((placement) => placement.constant === node.inputs[1])!;
          for (let at = 0, k = 0; at < weights.length; k++) {
            const end = Math.min(weights.length, at + cuts[k % cuts.length]);
            taps16.write(weights.subarray(at, end), at, runs);
            at = end;
          }
          const differs = runs.findIndex((value, i) => !Object.is(value, whole[i]));
          expect(differs, `first float that differs, of ${runs.length}`).toBe(-1);
        },
      ),
      { seed: 7, numRuns: 30 },
    );
  });
});
