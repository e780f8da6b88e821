import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { elementCount, type Graph } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { ZooError } from '../../src/models/zoo-error.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

const parameters = (graph: Graph): number => [...graph.tensors.values()].filter((t) => t.constant).reduce((sum, t) => sum + elementCount(t.shape), 0);
const shapeOf = (graph: Graph, name: string): readonly number[] => graph.tensors.get(name)!.shape;

/** ViT-B/16's parameters at `tokens` tokens, from the architecture: patch embedding, class token, positions, 12 blocks, final LayerNorm, head. */
function published(tokens: number): number {
  const d = 768;
  const block = 2 * 2 * d + 4 * (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d);
  return 16 * 16 * 3 * d + d + d + tokens * d + 12 * block + 2 * d + (d * 1000 + 1000);
}

describe('zoo:vit-b-16', () => {
  const graph = buildZooModel('zoo:vit-b-16');

  it('is ViT-B/16 at 384: 576 patches and a class token, 12 blocks of 12 heads, 86,859,496 parameters (timm vit_base_patch16_384)', () => {
    expect(executionOrder(graph)).toBe(graph.nodes);
    expect(graph.inputs.map((i) => shapeOf(graph, i))).toEqual([[1, 384, 384, 3]]);
    expect(graph.outputs.map((o) => shapeOf(graph, o))).toEqual([[1, 1000]]);
    expect(shapeOf(graph, 'vit/patch_embedding')).toEqual([1, 24, 24, 768]);
    expect(shapeOf(graph, 'vit/position_table')).toEqual([1, 577, 768]);
    expect(parameters(graph)).toBe(published(577));
    expect(parameters(graph)).toBe(86_859_496);
    const scores = graph.nodes.filter((n) => n.name.endsWith('/attention/scores'));
    expect(scores).toHaveLength(12);
    for (const node of scores) expect(shapeOf(graph, node.outputs[0])).toEqual([12, 577, 577]);
    expect(graph.nodes.filter((n) => n.op === 'Gelu').every((n) => n.op === 'Gelu' && n.approximate === 'none')).toBe(true);
    expect(graph.nodes.some((n) => n.op === 'CausalMask')).toBe(false);
    // Per block 22: 2 LayerNorms, 6 FullyConnected, 2 MatMuls, a Softmax, a GELU, 8 Reshapes/Transposes around the heads, 2 residual Adds; 4 in the stem, 4 in the head.
    expect(graph.nodes).toHaveLength(272);
    expect(graph.tensors.size).toBe(473);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), graphToProblem(graph, { elementSize: 4 })).valid).toBe(true);
  });

  it('takes another input size (a multiple of 16), fewer layers and a narrower width for quick runs', () => {
    const small = buildZooModel('zoo:vit-b-16?input=96');
    expect(shapeOf(small, 'vit/position_table')).toEqual([1, 37, 768]);
    expect(parameters(small)).toBe(published(37));
    const tiny = buildZooModel('zoo:vit-b-16?input=32&layers=2&width=0.25');
    expect(tiny.nodes.filter((n) => n.name.endsWith('/attention/scores')).map((n) => shapeOf(tiny, n.outputs[0]))).toEqual([
      [12, 5, 5],
      [12, 5, 5],
    ]);
    expect(() => buildZooModel('zoo:vit-b-16?input=100')).toThrow(/not a multiple of the 16-pixel patch/);
    expect(() => buildZooModel('zoo:vit-b-16?width=0.3')).toThrow(/do not split into 12 heads/);
    expect(() => buildZooModel('zoo:vit-b-16?batch=2')).toThrow(ZooError);
    expect(() => buildZooModel('zoo:vit-b-16?tokens=5')).toThrow(/has no parameter "tokens"/);
  });

  it('computes bit-identical logits inside the Greedy by Size plan and the naive one (CPU, 2 layers at 64 x 64)', async () => {
    const weighted = weightedGraph(buildZooModel('zoo:vit-b-16?input=64&layers=2&width=0.25'), 'seeded', 1);
    const problem = graphToProblem(weighted, { elementSize: 4, scratch: true });
    const run = async (planner: string) => {
      const prepared = await cpuBackend.prepare({ graph: weighted, problem, plan: planAndVerify(findPlanner(planner), problem, { alignment: 4 }) });
      return new Map([...(await prepared.infer(seededInputs(weighted, 1)))].map(([n, v]) => [n, v.slice()]));
    };
    const planned = await run('offsets/greedy-by-size');
    expect(bitIdentical(planned, await run('shared-objects/naive'))).toBe(true);
    const logits = planned.get('vit/head')!;
    expect(logits.every(Number.isFinite)).toBe(true);
    expect(new Set(logits).size).toBeGreaterThan(900);
  });
});
