import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { elementCount, type Graph } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

const parameters = (graph: Graph): number => [...graph.tensors.values()].filter((t) => t.constant).reduce((sum, t) => sum + elementCount(t.shape), 0);
const shapeOf = (graph: Graph, name: string): readonly number[] => graph.tensors.get(name)!.shape;

describe('zoo:gpt-2', () => {
  const graph = buildZooModel('zoo:gpt-2');

  it('is GPT-2 small over 128 token ids: 12 causal blocks, the head tied to the token embedding, 124,439,808 parameters (Hugging Face gpt2)', () => {
    expect(executionOrder(graph)).toBe(graph.nodes);
    expect(graph.tensors.get('input_ids')).toMatchObject({ shape: [1, 128], dtype: 'int32', constant: false });
    expect(graph.outputs.map((o) => shapeOf(graph, o))).toEqual([[1, 128, 50257]]);
    expect(parameters(graph)).toBe(124_439_808);
    // Tied: one [50257, 768] constant read by the embedding Gather and by the head (no weights of its own, no bias).
    const readers = graph.nodes.filter((n) => n.inputs.includes('gpt2/wte'));
    expect(readers.map((n) => n.op)).toEqual(['Gather', 'FullyConnected']);
    expect(readers[1].inputs).toEqual(['gpt2/ln_f', 'gpt2/wte']);
    expect(shapeOf(graph, 'gpt2/wte')).toEqual([50257, 768]);
    expect(graph.nodes.find((n) => n.name === 'gpt2/positions')).toMatchObject({ op: 'Slice', axes: [0], starts: [0], ends: [128] });
    expect(graph.nodes.filter((n) => n.op === 'CausalMask').map((n) => shapeOf(graph, n.outputs[0]))).toEqual(new Array(12).fill([12, 128, 128]));
    expect(graph.nodes.filter((n) => n.op === 'Gelu').every((n) => n.op === 'Gelu' && n.approximate === 'tanh')).toBe(true);
    expect(graph.nodes).toHaveLength(281);
    expect(graph.tensors.size).toBe(478);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), graphToProblem(graph, { elementSize: 4 })).valid).toBe(true);
  });

  it('takes the sequence length up to its 1024 positions, fewer layers and a narrower width', () => {
    expect(shapeOf(buildZooModel('zoo:gpt-2?tokens=1024'), 'gpt2/lm_head')).toEqual([1, 1024, 50257]);
    expect(() => buildZooModel('zoo:gpt-2?tokens=1025')).toThrow(/more than its 1024 positions/);
    const small = buildZooModel('zoo:gpt-2?tokens=4&layers=1&width=0.25');
    expect(parameters(small)).toBe(50257 * 192 + 1024 * 192 + (4 * 192 + 4 * (192 * 192 + 192) + 8 * 192 * 192 + 4 * 192 + 192) + 2 * 192);
    expect(() => buildZooModel('zoo:gpt-2?input=224')).toThrow(/has no parameter "input"/);
  });

  it("is causal: a later token changes no earlier position's logits (CPU, 2 layers)", async () => {
    const weighted = weightedGraph(buildZooModel('zoo:gpt-2?tokens=8&layers=2&width=0.25'), 'seeded', 2);
    const problem = graphToProblem(weighted, { elementSize: 4, scratch: true });
    const prepared = await cpuBackend.prepare({ graph: weighted, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 4 }) });
    const ids = seededInputs(weighted, 2).get('input_ids')!;
    expect(ids.every((v) => Number.isInteger(v) && v >= 0 && v < 50257)).toBe(true);
    const before = (await prepared.infer(new Map([['input_ids', ids]]))).get('gpt2/lm_head')!.slice();
    const changed = ids.slice();
    changed[7] = (changed[7] + 1) % 50257;
    const after = (await prepared.infer(new Map([['input_ids', changed]]))).get('gpt2/lm_head')!;
    const row = 50257;
    expect(after.subarray(0, 7 * row)).toEqual(before.subarray(0, 7 * row));
    expect(after.subarray(7 * row)).not.toEqual(before.subarray(7 * row));
    expect(before.every(Number.isFinite)).toBe(true);
  });
});
