import { describe, expect, it } from 'vitest';
import { fusedWithNext, readerCounts } from '../../../src/backends/cpu/fused-activations.ts';
import { type MemoryView, nodeKernels } from '../../../src/backends/cpu/node-kernels.ts';
import { IDLE } from '../../../src/backends/cpu/parts.ts';
import { sharedMemory, simdEngineOn } from '../../../src/backends/cpu/kernels/wasm/engine.ts';
import type { Graph, Node, Tensor } from '../../../src/graph/ir.ts';

const tensor = (name: string, shape: readonly number[]): Tensor => ({ name, shape, dtype: 'float32', constant: false });

/** x + y -> sum -> ReLU -> out (and whatever `extra` nodes read), the tensors where `at` puts them (floats). */
function graphWith(at: Record<string, number>, options: { extra?: Node[]; outputs?: string[]; yShape?: number[] } = {}): { view: MemoryView; order: Node[] } {
  const add: Node = { op: 'Add', activation: 'none', name: 'add', inputs: ['x', 'y'], outputs: ['sum'] };
  const relu: Node = { op: 'Relu', name: 'relu', inputs: ['sum'], outputs: ['out'] };
  const nodes = [add, relu, ...(options.extra ?? [])];
  const tensors = new Map(
    [tensor('x', [1, 4, 4, 8]), tensor('y', options.yShape ?? [1, 4, 4, 8]), tensor('sum', [1, 4, 4, 8]), tensor('out', [1, 4, 4, 8]), tensor('other', [1, 4, 4, 8])].map((t) => [t.name, t]),
  );
  const graph: Graph = { name: 'g', layout: 'NHWC', tensors, nodes, inputs: ['x', 'y'], outputs: options.outputs ?? ['out'] };
  return { view: { graph, heap: new Float32Array(0), at: (id) => at[id] ?? -1 }, order: nodes };
}

describe('an Add and the ReLU after it, as one op', () => {
  const apart = { x: 0, y: 128, sum: 256, out: 384 };

  it('writes the sum, ReLU applied, where the ReLU output lies, when nothing else reads the sum', () => {
    const { view, order } = graphWith(apart);
    expect(fusedWithNext(view, order, 0, readerCounts(order))).toMatchObject({ op: 'Add', activation: 'relu', inputs: ['x', 'y'], outputs: ['out'] });
    // The ReLU's output exactly on an operand: each value is read before it is written.
    const onX = graphWith({ ...apart, out: 0 });
    expect(fusedWithNext(onX.view, onX.order, 0, readerCounts(onX.order))).toBeDefined();
  });

  it('runs as the graph says where the fused op would compute something else', () => {
    const cases = [
      // The sum is read by another node too, or handed out.
      graphWith(apart, { extra: [{ op: 'Relu6', name: 'other', inputs: ['sum'], outputs: ['other'] }] }),
      graphWith(apart, { outputs: ['out', 'sum'] }),
      // The ReLU's output overlaps an operand without lying exactly on it.
      graphWith({ ...apart, out: 64 }),
      // ...or lies on a broadcast row (read again for every row).
      graphWith({ x: 0, y: 384, sum: 256, out: 384 }, { yShape: [8] }),
    ];
    for (const { view, order } of cases) expect(fusedWithNext(view, order, 0, readerCounts(view.graph.nodes))).toBeUndefined();
    // The last node, and a node that is no Add or Mul.
    const { view, order } = graphWith(apart);
    expect(fusedWithNext(view, order, 1, readerCounts(order))).toBeUndefined();
  });

  it('are fused by the node kernels only where every node is a step of its own (the ReLU then idles)', () => {
    const engine = simdEngineOn(sharedMemory(1)!);
    const { view, order } = graphWith(apart);
    const withEngine = { ...view, engine, heap: engine!.heap() };
    expect(nodeKernels(withEngine, order, 1, 0, true).kernels[1]).toBe(IDLE);
    // Several nodes a step: another node of the Add's step may read bytes the ReLU's output takes.
    expect(nodeKernels(withEngine, order, 1, 0, false).kernels[1]).not.toBe(IDLE);
  });
});
