import { describe, expect, it } from 'vitest';
import { budgetedNetwork, WEIGHT_SLICE_SHARE } from '../../src/graph/budget-records.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { GraphError, type Graph } from '../../src/graph/ir.ts';
import { layerMemory } from '../../src/graph/layer-memory.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';
import { buildZooModel } from '../../src/models/zoo.ts';

function network(): Graph {
  const b = new NetworkBuilder('records');
  let x = b.input('input', [1, 32, 32, 8]);
  x = b.conv('stem', x, { out: 16, kernel: 3, stride: 2, activation: 'relu' });
  x = b.depthwise('dw', x, { kernel: 3, activation: 'relu6' });
  x = b.conv('project', x, { out: 32, kernel: 1 });
  x = b.add('add', x, x);
  x = b.globalAveragePool('pool', x);
  x = b.dense('fc', x, 300);
  return b.build([b.softmax('softmax', x)]);
}

describe('budgeted records', () => {
  const graph = network();

  it('hold every activation (graph inputs and outputs too), one weight record per layer with weights and one scratch record per layer that needs one', () => {
    const { problem, layers } = budgetedNetwork(graph);
    const activations = graphToProblem(graph, { elementSize: 4, includeGraphIO: true }).records;
    expect(problem.records.filter((r) => r.kind === undefined)).toEqual(activations);
    expect(problem.budget).toBeUndefined();
    executionOrder(graph).forEach((node, step) => {
      const memory = layerMemory(graph, node);
      const weight = problem.records.find((r) => r.id === `${node.name}@weights`);
      const scratch = problem.records.find((r) => r.id === `${node.name}@scratch`);
      expect(weight === undefined ? 0 : weight.size, node.name).toBe(memory.weightBytes);
      expect(scratch === undefined ? 0 : scratch.size, node.name).toBe(memory.scratchBytes);
      if (weight) expect(weight).toMatchObject({ kind: 'weight', first: step, last: step, earliest: 0 });
      if (scratch) expect(scratch).toMatchObject({ kind: 'scratch', first: step, last: step });
      expect(layers.get(node.name)?.step).toBe(step);
    });
    const firsts = problem.records.map((r) => r.first);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
  });

  it('slice weights to a fifth of the budget and carry the budget', () => {
    const budget = 64 * 1024;
    const { problem, graph: sliced } = budgetedNetwork(graph, { budget });
    expect(problem.budget).toBe(budget);
    expect(sliced.nodes.some((n) => n.name === 'fc@concat')).toBe(true);
    for (const r of problem.records.filter((x) => x.kind === 'weight')) expect(r.size, r.id).toBeLessThanOrEqual(budget / WEIGHT_SLICE_SHARE);
  });

  it('refuse a graph whose tensor names collide with the records they add', () => {
    const b = new NetworkBuilder('clash');
    const x = b.input('input', [1, 4, 4, 4]);
    const y = b.conv('c', x, { out: 4, kernel: 1 });
    b.conv('c@weights', y, { out: 4, kernel: 1 });
    expect(() => budgetedNetwork(b.build(['c@weights']))).toThrow(GraphError);
  });

  it("size the zoo networks of FlexNN's evaluation", () => {
    for (const name of ['vgg-19', 'resnet-152', 'squeezenet-1.1', 'mobilenet-v2']) {
      const { problem } = budgetedNetwork(buildZooModel(`zoo:${name}`), { budget: 100 * 2 ** 20 });
      expect(problem.records.some((r) => r.kind === 'weight')).toBe(true);
    }
  });
});
