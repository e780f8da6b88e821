import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import type { Graph, Node, Tensor } from '../../src/graph/ir.ts';
import { graphToProblem, PAPER_RECORD_OPTIONS, plannedGraph, type RecordOptions } from '../../src/graph/lifetimes.ts';
import { memoryAwareOrder, orderPeak } from '../../src/graph/memory-aware-order.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { interleavedBranches, randomGraphs } from '../fixtures/graphs.ts';

const selections = fc.record({ includeGraphIO: fc.boolean(), elementSize: fc.constantFrom(undefined, 1, 4) });

/** Every node once, each after the producers of what it reads. */
function expectTopological(graph: Graph, order: readonly Node[]): void {
  expect([...order].map((n) => n.name).sort()).toEqual(graph.nodes.map((n) => n.name).sort());
  const done = new Set<string>();
  const produced = new Set(graph.nodes.flatMap((n) => n.outputs));
  for (const node of order) {
    for (const input of node.inputs) if (produced.has(input)) expect(done.has(input), `${node.name} reads ${input} before it is written`).toBe(true);
    node.outputs.forEach((o) => done.add(o));
  }
}

/** The offsets lower bound of the graph's records when its nodes run in `order`. */
const boundOf = (graph: Graph, order: readonly Node[], options: RecordOptions): number => lowerBounds(graphToProblem({ ...graph, nodes: order }, options)).offsets;

/** The lowest peak over every topological order (small graphs only). */
function bestPeak(graph: Graph, options: RecordOptions): number {
  const producer = new Map(graph.nodes.flatMap((n, k) => n.outputs.map((o) => [o, k] as const)));
  const needs = graph.nodes.map((n) => n.inputs.flatMap((i) => (producer.has(i) ? [producer.get(i)!] : [])));
  const done = graph.nodes.map(() => false);
  const path: Node[] = [];
  let best = Infinity;
  const visit = (): void => {
    if (path.length === graph.nodes.length) {
      best = Math.min(best, orderPeak(graph, path, options));
      return;
    }
    graph.nodes.forEach((node, k) => {
      if (done[k] || !needs[k].every((d) => done[d])) return;
      done[k] = true;
      path.push(node);
      visit();
      path.pop();
      done[k] = false;
    });
  };
  visit();
  return best;
}

describe('memory-aware operator order', () => {
  it('is a topological order of every node, never peaks above the given order, and its peak is the offsets bound of its records', () => {
    fc.assert(
      fc.property(randomGraphs(), selections, (graph, options) => {
        const order = memoryAwareOrder(graph, options);
        expectTopological(graph, order);
        const given = executionOrder(graph);
        const peak = orderPeak(graph, order, options);
        expect(peak).toBeLessThanOrEqual(orderPeak(graph, given, options));
        expect(peak).toBe(boundOf(graph, order, options));
        expect(orderPeak(graph, given, options)).toBe(boundOf(graph, given, options));
        // graphToProblem with the option plans exactly this order.
        expect(graphToProblem(graph, { ...options, order: 'memory-aware' })).toEqual(graphToProblem({ ...graph, nodes: order }, options));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the lowest peak of any order on small graphs', () => {
    fc.assert(
      fc.property(randomGraphs({ maxNodes: 7 }), selections, (graph, options) => {
        expect(orderPeak(graph, memoryAwareOrder(graph, options), options)).toBe(bestPeak(graph, options));
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic, and stays valid and no worse when the work budget runs out', () => {
    fc.assert(
      fc.property(randomGraphs({ maxNodes: 60, maxWindow: 20 }), fc.integer({ min: 0, max: 200 }), (graph, work) => {
        const names = (order: readonly Node[]) => order.map((n) => n.name);
        expect(names(memoryAwareOrder(graph))).toEqual(names(memoryAwareOrder(graph)));
        const cut = memoryAwareOrder(graph, {}, { work, workPerSegment: work });
        expectTopological(graph, cut);
        expect(orderPeak(graph, cut)).toBeLessThanOrEqual(orderPeak(graph, executionOrder(graph)));
      }),
      { numRuns: 100 },
    );
  });

  it('runs two long branches one after the other instead of interleaved', () => {
    // s feeds two chains of 100-byte tensors that end in 1-byte tensors; `out` joins them.
    const sizes: Record<string, number> = { in: 1, s: 10, a1: 100, a2: 100, a3: 1, b1: 100, b2: 100, b3: 1, out: 1 };
    const tensors = new Map<string, Tensor>(Object.entries(sizes).map(([name, size]) => [name, { name, shape: [size], dtype: 'int8', constant: false }]));
    const relu = (output: string, input: string): Node => ({ op: 'Relu', name: output, inputs: [input], outputs: [output] });
    const nodes: Node[] = [
      relu('s', 'in'),
      relu('a1', 's'),
      relu('b1', 's'),
      relu('a2', 'a1'),
      relu('b2', 'b1'),
      relu('a3', 'a2'),
      relu('b3', 'b2'),
      { op: 'Add', activation: 'none', name: 'out', inputs: ['a3', 'b3'], outputs: ['out'] },
    ];
    const graph: Graph = { name: 'branches', layout: 'NHWC', tensors, nodes, inputs: ['in'], outputs: ['out'] };
    // Interleaved, a2's step holds a1 a2 b1 (300 bytes); one branch first holds s a1 a2 (210), the best.
    expect(orderPeak(graph, nodes)).toBe(300);
    const order = memoryAwareOrder(graph);
    expect(orderPeak(graph, order)).toBe(210);
    expect(order.map((n) => n.name)).toEqual(['s', 'a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'out']);
    expect(lowerBounds(graphToProblem(graph, { order: 'memory-aware' })).offsets).toBe(210);
  });

  it('lowers the peak of a real network stored in a bad order, fused or not', () => {
    const graph = interleavedBranches();
    for (const fuseActivations of [false, true]) {
      const options = { elementSize: 4, fuseActivations };
      expect(lowerBounds(graphToProblem(graph, options)).offsets).toBe(96 * 1024);
      expect(lowerBounds(graphToProblem(graph, { ...options, order: 'memory-aware' })).offsets).toBe(68 * 1024);
      const planned = plannedGraph(graph, { ...options, order: 'memory-aware' });
      expect(executionOrder(planned)).toBe(planned.nodes);
      expect(planned.nodes.some((n) => n.op === 'Relu')).toBe(!fuseActivations);
    }
  });

  it("keeps the zoo's order: their peaks sit at operators that every order runs at the same point", () => {
    for (const name of ['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface']) {
      const graph = buildZooModel(`zoo:${name}`);
      const order = memoryAwareOrder(graph, PAPER_RECORD_OPTIONS);
      expect(orderPeak(graph, order, PAPER_RECORD_OPTIONS), name).toBe(orderPeak(graph, graph.nodes, PAPER_RECORD_OPTIONS));
      expect(order, name).toEqual(graph.nodes);
    }
  });

  it('leaves the records alone with the default order', () => {
    const graph = interleavedBranches();
    expect(plannedGraph(graph, { elementSize: 4 })).toBe(graph);
    expect(graphToProblem(graph, { order: 'given' })).toEqual(graphToProblem(graph));
  });
});
