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
        const { got, want } = await executorAndKernel(depthwiseNetwork([n, h, w, c], stride, dilation, padding));
        expectClose(got, want, 1e-5, `${n}x${h}x${w}x${c} stride ${stride} dilation ${dilation} ${padding}`);
      }),
      { numRuns: 60 },
    );
  });

  it('writes its frames only inside the scratch planned for it, and fills that scratch to its last float (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(geometries(40, 20), async ([n, h, w, c, stride, dilation, padding]) => {
        const graph = depthwiseNetwork([n, h, w, c], stride, dilation, padding);
        const { heap, scratchAt, scratch } = runGuarded(graph, `${n}x${h}x${w}x${c} stride ${stride} dilation ${dilation} ${padding}`);
        if (scratch > 0 && Number.isNaN(heap[scratchAt + scratch - 1])) {
          throw new Error(`${n}x${h}x${w}x${c} stride ${stride} dilation ${dilation} ${padding}: the scratch's last float (of ${scratch}) was never written (planned larger than used)`);
        }
      }),
      { numRuns: 80 },
    );
  });
});

/** One 3x3 stride-1 convolution of 16 or more input channels (the Winograd path) as a network, its weights seeded. */
function winogradNetwork(shape: readonly [number, number, number, number], out: number, padding: 'same' | 'valid', activation: 'relu6' | 'sigmoid' | 'none'): Graph {
  const b = new NetworkBuilder('one-winograd', 'float32');
  const x = b.input('x', shape);
  return weightedGraph(b.build([b.conv('conv', x, { out, kernel: 3, padding, activation })]), 'seeded', 5);
}

/** Random Winograd layers: batch, height, width, input and output channels (multiples of 4), padding (VALID where a window fits) and the fused activation. */
function winogradGeometries(side: number) {
  return fc
    .tuple(
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: side }),
      fc.integer({ min: 1, max: side }),
      fc.constantFrom(16, 20, 24, 36),
      fc.integer({ min: 1, max: 9 }).map((k) => 4 * k),
      fc.constantFrom('same' as const, 'valid' as const),
      fc.constantFrom('relu6' as const, 'sigmoid' as const, 'none' as const),
    )
    .filter(([, h, w, , , padding]) => padding === 'same' || (h >= 3 && w >= 3));
}

describe("the executor's Winograd F(2x2, 3x3) path (arena-kernels.ts)", () => {
  it('computes what the Conv kernel computes: odd sizes, both paddings, every activation (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(winogradGeometries(13), async ([n, h, w, c, o, padding, activation]) => {
        const graph = winogradNetwork([n, h, w, c], o, padding, activation);
        const node = graph.nodes[0] as Node;
        const label = `${n}x${h}x${w}x${c} -> ${o} ${padding} ${activation}`;
        if (layerMemory(graph, node).path !== 'winograd3x3') throw new Error(`${label}: not on the Winograd path`);
        const { got, want } = await executorAndKernel(graph);
        expectClose(got, want, 1e-5, label);
      }),
      { numRuns: 50 },
    );
  });

  it('writes only inside the scratch planned for it, and fills that scratch to its last float (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(winogradGeometries(30), async ([n, h, w, c, o, padding, activation]) => {
        const graph = winogradNetwork([n, h, w, c], o, padding, activation);
        const label = `${n}x${h}x${w}x${c} -> ${o} ${padding}`;
        const { heap, scratchAt, scratch, outputAt } = runGuarded(graph, label);
        if (heap.subarray(outputAt, outputAt + elements(graph, graph.outputs[0])).some(Number.isNaN)) throw new Error(`${label}: an output pixel was not written`);
        if (Number.isNaN(heap[scratchAt + scratch - 1])) throw new Error(`${label}: the scratch's last float (of ${scratch}) was never written (planned larger than used)`);
      }),
      { numRuns: 60 },
    );
  });
});

/** A one-layer network's output from the CPU executor (inside a plan) and from the CPU backend's Conv kernel on the same input. */
async function executorAndKernel(graph: Graph): Promise<{ got: Float32Array; want: Float32Array }> {
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
  return { got, want };
}

/**
 * Runs a one-layer network's kernel alone on a memory where its input, weights, output and
 * scratch each lie between guards of NaN, the scratch NaN throughout, so that any float the
 * kernel writes shows; throws where it wrote beside a record.
 */
function runGuarded(graph: Graph, label: string): { heap: Float32Array; scratchAt: number; scratch: number; outputAt: number } {
  const node = graph.nodes[0] as Node;
  const memory = layerMemory(graph, node);
  const scratch = memory.scratchBytes / 4;
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
  heap.set(seededInputs(graph, 9).get('x')!, context.at('x'));
  const weightsAt = context.at(`${node.name}@weights`);
  const form = nodeWeights(graph, node);
  heap.fill(0, weightsAt, weightsAt + form.floats);
  for (const placement of form.placements) placement.write(graph.tensors.get(placement.constant)!.data as Float32Array, 0, heap.subarray(weightsAt, weightsAt + form.floats));
  layerKernel(node, memory, context)();
  for (const [id, floats] of sizes) {
    const start = context.at(id);
    for (const guard of [heap.subarray(start - GUARD, start), heap.subarray(start + floats, start + floats + GUARD)]) {
      if (!guard.every(Number.isNaN)) throw new Error(`${label}: the kernel wrote beside ${id}`);
    }
  }
  return { heap, scratchAt: context.at(`${node.name}@scratch`), scratch, outputAt: context.at(node.outputs[0]) };
}

function elements(graph: Graph, name: string): number {
  return graph.tensors.get(name)!.shape.reduce((p, d) => p * d, 1);
}
