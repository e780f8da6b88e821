import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/backends/backend.ts';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { executionMemory } from '../../../src/backends/cpu/execution-memory.ts';
import { GraphIo } from '../../../src/backends/cpu/graph-io.ts';
import { nodeKernels } from '../../../src/backends/cpu/node-kernels.ts';
import { writeWeights } from '../../../src/backends/cpu/write-weights.ts';
import { partRange, takesItem } from '../../../src/backends/cpu/parts.ts';
import { cpuParallelBackend } from '../../../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../../src/backends/run-data.ts';
import { executionOrder } from '../../../src/graph/execution-order.ts';
import type { Graph } from '../../../src/graph/ir.ts';
import { plannedProblem } from '../../../src/graph/lifetimes.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';

describe('a split of an operator', () => {
  it('gives the parts disjoint runs that cover every item, bounds on the alignment (fast-check)', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 8 }), (total, parts, align) => {
        let next = 0;
        for (let part = 0; part < parts; part++) {
          const { start, end } = partRange(total, part, parts, align);
          expect(start).toBe(next);
          expect(end).toBeGreaterThanOrEqual(start);
          if (end < total) expect(end % align).toBe(0);
          next = end;
        }
        expect(next).toBe(total);
      }),
    );
    // Round robin: each item to exactly one part.
    for (let index = 0; index < 10; index++) expect([0, 1, 2].filter((part) => takesItem(index, part, 3))).toEqual([index % 3]);
  });
});

/** A network with an operator of every kind the executor splits, and some it runs whole. */
function everyKind(): Graph {
  const b = new NetworkBuilder('split');
  const x = b.input('in', [2, 13, 11, 8]);
  const stem = b.conv('im2col', x, { out: 12, kernel: 3, activation: 'relu6' });
  const dw3 = b.depthwise('dw3x3', stem, { kernel: 3, activation: 'relu' });
  const dw5 = b.depthwise('dw5x5', dw3, { kernel: 5, stride: 2 });
  const pw = b.conv('pointwise', dw5, { out: 16, kernel: 1, activation: 'sigmoid' });
  const winograd = b.conv('winograd', pw, { out: 16, kernel: 3, activation: 'sigmoid' });
  const other = b.conv('pointwise2', dw5, { out: 16, kernel: 1 });
  const sum = b.add('add', winograd, other, 'tanh');
  const relu = b.unary('relu', 'Relu', sum);
  const pooled = b.pool('maxpool', 'MaxPool', relu, 3, 2, 'same');
  const avg = b.pool('avgpool', 'AveragePool', pooled, 2, 1, 'same');
  const padded = b.pad('pad', avg, [
    [0, 0],
    [1, 0],
    [0, 1],
    [0, 4],
  ]);
  const joined = b.concat('concat', [padded, padded]);
  return b.build([b.dense('fc', b.globalAveragePool('gap', joined), 21, 'sigmoid')]);
}

async function outputs(graph: Graph, backend: Backend, threads: number): Promise<Map<string, Float32Array>> {
  const { graph: planned, problem } = plannedProblem(graph, { elementSize: 4, scratch: true, threads });
  const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
  const prepared = await backend.prepare({ graph: planned, problem, plan, threads, ...(backend === cpuParallelBackend ? { workers: Math.min(threads, 2) } : {}) });
  try {
    const result = await prepared.infer(seededInputs(planned, 1));
    return new Map([...result].map(([name, values]) => [name, values.slice()]));
  } finally {
    prepared.dispose();
  }
}

describe('operators split over threads', () => {
  it('compute bit for bit what one thread computes: parts one after the other (cpu) and at once on the pool (cpu-parallel)', async () => {
    const graph = weightedGraph(everyKind(), 'seeded', 3);
    const whole = await outputs(graph, cpuBackend, 1);
    for (const threads of [2, 3]) {
      expect(bitIdentical(await outputs(graph, cpuBackend, threads), whole), `cpu, ${threads} parts`).toBe(true);
      expect(bitIdentical(await outputs(graph, cpuParallelBackend, threads), whole), `cpu-parallel, ${threads} parts`).toBe(true);
    }
  });

  it('give each part a share of the work: alone, a part writes part of the output of a split operator, and the parts together all of it', () => {
    const { graph, problem } = plannedProblem(weightedGraph(everyKind(), 'seeded', 3), { elementSize: 4, scratch: true, threads: 2 });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    const order = executionOrder(graph);
    const memory = executionMemory(graph, order, problem, plan);
    writeWeights({ graph, problem, plan }, memory);
    new GraphIo(graph, memory.view).load(seededInputs(graph, 1));
    const { kernels } = nodeKernels({ graph, heap: memory.heap, at: memory.at, engine: memory.engine }, order, 2);
    const shares = new Map<string, number[]>();
    order.forEach((node, k) => {
      const out = memory.view(node.outputs[0]);
      const written = [0, 1].map((part) => {
        out.fill(Number.NaN);
        kernels[2 * k + part]();
        return out.filter((v) => !Number.isNaN(v)).length / out.length;
      });
      // Both parts again, so that the next node reads this one's whole output.
      kernels[2 * k]();
      kernels[2 * k + 1]();
      shares.set(node.name, written);
    });
    for (const name of ['im2col', 'dw3x3', 'dw5x5', 'pointwise', 'winograd', 'add', 'relu', 'maxpool', 'avgpool', 'concat', 'fc']) {
      const [first, second] = shares.get(name) ?? [];
      expect(first, name).toBeGreaterThan(0);
      expect(second, name).toBeGreaterThan(0);
      expect(first + second, name).toBeCloseTo(1, 10);
    }
    // A padding (clearing, then copies) runs whole in part 0.
    expect(shares.get('pad')).toEqual([1, 0]);
  });

  it('trace as one slice what a worker ran of an operator, its parts named, every part once', async () => {
    const { graph, problem } = plannedProblem(weightedGraph(everyKind(), 'seeded', 3), { elementSize: 4, scratch: true, threads: 2 });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    const prepared = await cpuParallelBackend.prepare({ graph, problem, plan, threads: 2, workers: 2 });
    try {
      const spans = (await prepared.trace?.(seededInputs(graph, 1))) ?? [];
      const order = executionOrder(graph);
      for (const node of order) {
        const own = spans.filter((span) => span.node.startsWith(`${node.name} (part`));
        // One slice per worker at most: a worker runs an operator's parts one after the other.
        expect(new Set(own.map((span) => span.thread)).size, node.name).toBe(own.length);
        const numbers = own.flatMap((span) => /\(parts? ([\d, ]+) of (\d+)\)$/.exec(span.node)?.[1].split(', ').map(Number) ?? []);
        const of = Number(/ of (\d+)\)$/.exec(own[0]?.node ?? '')?.[1]);
        expect(
          numbers.sort((a, b) => a - b),
          node.name,
        ).toEqual(Array.from({ length: of }, (_, k) => k + 1));
        for (const span of own) expect(span.end, node.name).toBeGreaterThanOrEqual(span.start);
      }
    } finally {
      prepared.dispose();
    }
  });

  it('refuse a plan made for another number of threads: its scratch holds a band per thread', async () => {
    const { graph, problem } = plannedProblem(weightedGraph(everyKind(), 'seeded', 3), { elementSize: 4, scratch: true, threads: 2 });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    await expect(cpuBackend.prepare({ graph, problem, plan })).rejects.toThrow(/node im2col needs \d+ bytes of scratch, which the plan's records do not hold/);
    await expect(cpuBackend.prepare({ graph, problem, plan, threads: 3 })).rejects.toThrow(/\(a band for each of 3 threads\).*threads 3\)\.$/);
  });
});
