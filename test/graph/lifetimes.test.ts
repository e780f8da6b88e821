import { describe, expect, it } from 'vitest';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { GraphError, type Graph, type Node, type Tensor } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';

/** input -> conv (no activation) -> Relu -> resize to the same size -> conv -> output */
function small(): Graph {
  const b = new NetworkBuilder('small');
  const x = b.input('in', [1, 8, 8, 3]);
  const c = b.conv('c1', x, { out: 6, kernel: 3 });
  const r = b.unary('relu', 'Relu', c);
  const same = b.resizeBilinear('same', r, [8, 8], false);
  return b.build([b.conv('c2', same, { out: 4, kernel: 1 })]);
}

describe('lifetimes', () => {
  it('records every non-constant tensor an op touches, graph I/O left out, in order of first use', () => {
    const problem = graphToProblem(small());
    expect(problem.records.map((r) => [r.id, r.first, r.last, r.size])).toEqual([
      ['c1', 0, 1, 8 * 8 * 6 * 4],
      ['relu', 1, 2, 8 * 8 * 6 * 4],
      ['same', 2, 3, 8 * 8 * 6 * 4],
    ]);
    expect(problem.operatorCount).toBe(4);
  });

  it('keeps graph inputs and outputs on request, and forces the element size', () => {
    const problem = graphToProblem(small(), { includeGraphIO: true, elementSize: 1 });
    expect(problem.records.map((r) => r.id)).toEqual(['in', 'c1', 'relu', 'same', 'c2']);
    expect(problem.records[0].size).toBe(8 * 8 * 3);
  });

  it('rounds channels up to 4 (PHWC4)', () => {
    const problem = graphToProblem(small(), { roundChannelsTo4: true, elementSize: 1 });
    expect(problem.records[0].size).toBe(8 * 8 * 8);
  });

  it('fuses a standalone activation and drops identity ops', () => {
    const problem = graphToProblem(small(), { fuseActivations: true, dropIdentityOps: true });
    expect(problem.records.map((r) => [r.id, r.first, r.last])).toEqual([['relu', 0, 1]]);
  });
});

describe("scratch records (the CPU executor's kernels)", () => {
  const graph = (): Graph => {
    const b = new NetworkBuilder('scratchy');
    const x = b.input('in', [1, 16, 16, 8]);
    const c = b.conv('conv3x3', x, { out: 16, kernel: 3 });
    const p = b.conv('pointwise', c, { out: 16, kernel: 1 });
    const d = b.depthwise('dw', p, { kernel: 3 });
    return b.build([b.dense('fc', b.globalAveragePool('gap', d), 10)]);
  };

  it('are planned only when asked: one per node that needs one, at its step, of kind scratch, after the tensors of that step', () => {
    const plain = graphToProblem(graph(), { elementSize: 4 });
    expect(plain.records.some((r) => r.kind === 'scratch')).toBe(false);
    const problem = graphToProblem(graph(), { elementSize: 4, scratch: true });
    const scratch = problem.records.filter((r) => r.kind === 'scratch');
    // The 3x3 convolution's im2col band and the depthwise convolution's framed band; the 1x1 convolution and the FullyConnected layer read their input where it lies.
    expect(scratch.map((r) => r.id)).toEqual(['conv3x3@scratch', 'dw@scratch']);
    const order = executionOrder(graph()).map((n) => n.name);
    for (const record of scratch) {
      const step = order.indexOf(record.id.replace('@scratch', ''));
      expect(record).toMatchObject({ first: step, last: step });
    }
    // The tensors come as without scratch, each scratch record after the tensors its step starts.
    expect(problem.records.filter((r) => r.kind !== 'scratch')).toEqual(plain.records);
    const firsts = problem.records.map((r) => r.first);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
  });

  it('hold a band per thread when operators are split over threads, and refuse a thread count that is not a whole number', () => {
    const one = graphToProblem(graph(), { elementSize: 4, scratch: true });
    const three = graphToProblem(graph(), { elementSize: 4, scratch: true, threads: 3 });
    expect(three.records.map((r) => [r.id, r.kind === 'scratch' ? r.size / 3 : r.size])).toEqual(one.records.map((r) => [r.id, r.size]));
    expect(() => graphToProblem(graph(), { elementSize: 4, scratch: true, threads: 0 })).toThrow('threads must be a whole number of at least 1, got 0.');
  });
});

describe('execution order', () => {
  const tensor = (name: string): Tensor => ({ name, shape: [1, 4], dtype: 'float32', constant: false });
  const relu = (name: string, input: string, output: string): Node => ({ op: 'Relu', name, inputs: [input], outputs: [output] });
  const graph = (nodes: Node[]): Graph => ({
    name: 'g',
    layout: 'NHWC',
    tensors: new Map(['a', 'b', 'c', 'd'].map((n) => [n, tensor(n)])),
    nodes,
    inputs: ['a'],
    outputs: ['d'],
  });

  it('keeps a stored topological order, repairs an unsorted one', () => {
    const sorted = [relu('n1', 'a', 'b'), relu('n2', 'b', 'c'), relu('n3', 'c', 'd')];
    expect(executionOrder(graph(sorted)).map((n) => n.name)).toEqual(['n1', 'n2', 'n3']);
    expect(executionOrder(graph([sorted[2], sorted[0], sorted[1]])).map((n) => n.name)).toEqual(['n1', 'n2', 'n3']);
  });

  it('names a node on a cycle', () => {
    const cyclic = [relu('n1', 'c', 'b'), relu('n2', 'b', 'c'), relu('n3', 'c', 'd')];
    expect(() => executionOrder(graph(cyclic))).toThrow(GraphError);
    expect(() => executionOrder(graph(cyclic))).toThrow(/cycle through node n1/);
  });

  it('refuses a tensor written twice', () => {
    expect(() => executionOrder(graph([relu('n1', 'a', 'b'), relu('n2', 'a', 'b')]))).toThrow(/written by both/);
  });
});
