import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { ArenaContext } from '../../../src/backends/cpu/arena-context.ts';
import { layerKernel } from '../../../src/backends/cpu/arena-kernels.ts';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { sharedMemory, simdEngineOn } from '../../../src/backends/cpu/kernels/wasm/engine.ts';
import { nodeWeights } from '../../../src/backends/cpu/weight-placement.ts';
import { seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import type { Graph, Node } from '../../../src/graph/ir.ts';
import { layerMemory } from '../../../src/graph/layer-memory.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { expectClose, runKernel } from './kernels/helpers.ts';

/** One 3x3 depthwise convolution as a network, its weights seeded. */
function depthwiseNetwork(shape: readonly [number, number, number, number], stride: number, dilation: number, padding: 'same' | 'valid'): Graph {
  const b = new NetworkBuilder('one-depthwise', 'float32');
  const x = b.input('x', shape);
  return weightedGraph(b.build([b.depthwise('dw', x, { kernel: 3, stride, dilation, padding, activation: 'relu6' })]), 'seeded', 5);
}

/** Random 3x3 depthwise layers: batch, height, width, channels, stride, dilation and padding (VALID only where a window fits). */
function geometries(side: number, channels: number) {
  return fc
    .tuple(
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: side }),
      fc.integer({ min: 1, max: side }),
      fc.integer({ min: 1, max: channels }),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom('same' as const, 'valid' as const),
    )
    .filter(([, h, w, , , dilation, padding]) => padding === 'same' || (h > 2 * dilation && w > 2 * dilation));
}

describe("the executor's 3x3 depthwise path (arena-kernels.ts)", () => {
  it('computes what the Conv kernel computes: the windows inside read in place, the edges and the rows outside framed (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(geometries(14, 11), async ([n, h, w, c, stride, dilation, padding]) => {
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
      }),
      { numRuns: 60 },
    );
  });

  it('writes its frames only inside the scratch planned for it, and fills that scratch to its last float (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(geometries(40, 20), async ([n, h, w, c, stride, dilation, padding]) => {
        const graph = depthwiseNetwork([n, h, w, c], stride, dilation, padding);
        const node = graph.nodes[0] as Node;
        const memory = layerMemory(graph, node);
        const scratch = memory.scratchBytes / 4;
        // Each record with a guard of NaN on either side; the scratch NaN throughout, so that a float the kernel writes shows.
        const GUARD = 64;
        const sizes = new Map([
          ['x', elements(graph, 'x')],
          [`${node.name}@weights`, memory.weightBytes / 4],
          [node.outputs[0], elements(graph, node.outputs[0])],
          [`${node.name}@scratch`, scratch],
        ]);
        const at = new Map<string, number>();
        let end = GUARD;
        for (const [id, floats] of sizes) {
          at.set(id, end);
          end += floats + GUARD;
        }
        const engine = simdEngineOn(sharedMemory(Math.ceil((end * 4 + 64) / 65536) + 1)!, 0)!;
        const heap = engine.heap();
        const base = 16; // past the engine's temporary area (32 bytes at 0)
        heap.fill(Number.NaN, base, base + end);
        const context: ArenaContext = { graph, engine, heap, at: (id) => base + at.get(id)! };
        const inputs = seededInputs(graph, 9);
        heap.set(inputs.get('x')!, context.at('x'));
        const weightsAt = context.at(`${node.name}@weights`);
        const form = nodeWeights(graph, node);
        heap.fill(0, weightsAt, weightsAt + form.floats);
        for (const placement of form.placements) placement.write(graph.tensors.get(placement.constant)!.data as Float32Array, 0, heap.subarray(weightsAt, weightsAt + form.floats));
        layerKernel(node, memory, context)();
        const label = `${n}x${h}x${w}x${c} stride ${stride} dilation ${dilation} ${padding}: scratch ${scratch} floats`;
        for (const [id, floats] of sizes) {
          const start = context.at(id);
          for (const guard of [heap.subarray(start - GUARD, start), heap.subarray(start + floats, start + floats + GUARD)]) {
            if (!guard.every(Number.isNaN)) throw new Error(`${label}: the kernel wrote beside ${id}`);
          }
        }
        if (scratch > 0) {
          const frames = heap.subarray(context.at(`${node.name}@scratch`), context.at(`${node.name}@scratch`) + scratch);
          if (Number.isNaN(frames[scratch - 1])) throw new Error(`${label}: the scratch's last float was never written (planned larger than used)`);
        }
      }),
      { numRuns: 80 },
    );
  });
});

function elements(graph: Graph, name: string): number {
  return graph.tensors.get(name)!.shape.reduce((p, d) => p * d, 1);
}
