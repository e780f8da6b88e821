import fc from 'fast-check';
import { describe, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import type { Graph, Node } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';
import { executionRecords } from '../../../src/measuring/isolation/execute-isolated.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { expectClose, runKernel } from './kernels/helpers.ts';

/** One 3x3 depthwise convolution as a network, its weights seeded. */
function depthwiseNetwork(shape: readonly [number, number, number, number], stride: number, dilation: number, padding: 'same' | 'valid'): Graph {
  const b = new NetworkBuilder('one-depthwise', 'float32');
  const x = b.input('x', shape);
  return weightedGraph(b.build([b.depthwise('dw', x, { kernel: 3, stride, dilation, padding, activation: 'relu6' })]), 'seeded', 5);
}

describe("the executor's 3x3 depthwise path (arena-kernels.ts)", () => {
  it('computes what the Conv kernel computes: the windows inside read in place, the edges and the rows outside framed (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 1, max: 11 }),
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('same' as const, 'valid' as const),
        async (n, h, w, c, stride, dilation, padding) => {
          fc.pre(padding === 'same' || (h > 2 * dilation && w > 2 * dilation));
          const graph = depthwiseNetwork([n, h, w, c], stride, dilation, padding);
          const problem = graphToProblem(graph, executionRecords(cpuBackend));
          const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
          const inputs = seededInputs(graph, 9);
          const prepared = await cpuBackend.prepare({ graph, problem, plan });
          const got = new Map(await prepared.infer(inputs)).get(graph.outputs[0])!;
          const node = graph.nodes[0] as Node;
          const operands = node.inputs.map((name) => (name === 'x' ? inputs.get('x')! : (graph.tensors.get(name)!.data as Float32Array)));
          const want = runKernel(
            node,
            operands,
            node.inputs.map((name) => graph.tensors.get(name)!.shape),
          ).output;
          expectClose(got, want, 1e-5, `${n}x${h}x${w}x${c} stride ${stride} dilation ${dilation} ${padding}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
