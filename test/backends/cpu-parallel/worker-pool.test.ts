import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/backends/backend-error.ts';
import { executionMemory, type ExecutionMemory } from '../../../src/backends/cpu/execution-memory.ts';
import { makeSpans } from '../../../src/backends/cpu-parallel/step-control.ts';
import { StepPool } from '../../../src/backends/cpu-parallel/worker-pool.ts';
import { executionOrder } from '../../../src/graph/execution-order.ts';
import type { Graph, Node, Tensor } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';

const tensor = (name: string): Tensor => ({ name, shape: [1, 2], dtype: 'float32', constant: false });

/** A graph of these nodes over [1, 2] tensors, its inputs `inputs`, every other tensor an output too (all of them in memory). */
function graphOf(nodes: Node[], inputs: string[]): Graph {
  const names = new Set([...inputs, ...nodes.flatMap((n) => [...n.inputs, ...n.outputs])]);
  return { name: 'pool-test', layout: 'NHWC', tensors: new Map([...names].map((n) => [n, tensor(n)])), nodes, inputs, outputs: nodes.map((n) => n.outputs[0]) };
}

/** The graph in one execution memory (naive plan, every tensor its own bytes), loaded on a pool of `workers`. */
async function loaded(graph: Graph, steps: number[][], workers: number): Promise<{ pool: StepPool; memory: ExecutionMemory }> {
  const problem = graphToProblem(graph, { elementSize: 4, includeGraphIO: true, scratch: true });
  const plan = planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 });
  const memory = executionMemory(graph, executionOrder(graph), problem, plan, { workers });
  const pool = await StepPool.start(workers);
  await pool.load({}, { graph, memory: memory.wasm ?? (memory.buffer as SharedArrayBuffer), byteAt: memory.byteAt, steps, parts: 1, bands: 1, spans: makeSpans(graph.nodes.length) }, (k) =>
    memory.temporary(k + 1),
  );
  return { pool, memory };
}

describe('the step pool', () => {
  it("runs the steps in order, each after the last one's operators are all done", async () => {
    // Four operators per step, each adding the input to what an operator of the step before wrote.
    const name = (s: number, k: number): string => `s${s}k${k}`;
    const nodes: Node[] = Array.from({ length: 6 }, (_, s) =>
      Array.from({ length: 4 }, (_, k): Node => ({ op: 'Add', activation: 'none', name: name(s, k), inputs: [s === 0 ? 'one' : name(s - 1, (k + 1) % 4), 'one'], outputs: [name(s, k)] })),
    ).flat();
    const steps = Array.from({ length: 6 }, (_, s) => [0, 1, 2, 3].map((k) => s * 4 + k));
    const { pool, memory } = await loaded(graphOf(nodes, ['one']), steps, 3);
    try {
      memory.view('one').set([1, 1]);
      const run = await pool.run();
      // Step s writes s + 2 everywhere: 1 + 1, then one more per step.
      for (let s = 0; s < 6; s++) for (let k = 0; k < 4; k++) expect([...memory.view(name(s, k))]).toEqual([s + 2, s + 2]);
      expect(run.stepMs).toHaveLength(6);
      expect(run.busyMs).toHaveLength(3);
      expect(pool.workers).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it("reports an operator that throws as the step's error, naming the node, and runs again afterwards", async () => {
    // A softmax along an axis the tensor does not have: its kernel throws when it runs.
    const nodes: Node[] = [
      { op: 'Add', activation: 'none', name: 'fine', inputs: ['x', 'x'], outputs: ['y'] },
      { op: 'Softmax', axis: 5, beta: 1, name: 'broken', inputs: ['x'], outputs: ['z'] },
    ];
    const { pool, memory } = await loaded(graphOf(nodes, ['x']), [[0, 1]], 2);
    try {
      memory.view('x').set([1, 2]);
      for (let k = 0; k < 2; k++) {
        const error = await pool.run().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BackendError);
        expect((error as Error).message).toMatch(/^node broken \(Softmax\) failed on worker \d: node broken \(Softmax\): axis 5 is out of range for rank 2/);
      }
      expect([...memory.view('y')]).toEqual([2, 4]);
    } finally {
      await pool.close();
    }
  });

  it('runs a second memory of the graph it holds (the graph not sent again) on its own bytes', async () => {
    const graph = graphOf([{ op: 'Add', activation: 'none', name: 'a', inputs: ['x', 'x'], outputs: ['y'] }], ['x']);
    const { pool, memory: first } = await loaded(graph, [[0]], 2);
    try {
      const problem = graphToProblem(graph, { elementSize: 4, includeGraphIO: true, scratch: true });
      const plan = planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment: 4 });
      const second = executionMemory(graph, executionOrder(graph), problem, plan, { workers: 2 });
      await pool.load({}, { graph, memory: second.wasm ?? (second.buffer as SharedArrayBuffer), byteAt: second.byteAt, steps: [[0]], parts: 1, bands: 1, spans: makeSpans(1) }, (k) =>
        second.temporary(k + 1),
      );
      first.view('x').set([1, 2]);
      second.view('x').set([5, 7]);
      await pool.run();
      expect([...second.view('y')]).toEqual([10, 14]);
      expect([...first.view('y')]).toEqual([0, 0]);
    } finally {
      await pool.close();
    }
  });

  it('refuses to run once closed instead of waiting for workers that are gone, and before it holds a network', async () => {
    const idle = await StepPool.start(1);
    await expect(idle.run()).rejects.toThrow(/holds no network/);
    await idle.close();
    const { pool } = await loaded(graphOf([{ op: 'Add', activation: 'none', name: 'a', inputs: ['x', 'x'], outputs: ['y'] }], ['x']), [[0]], 1);
    await pool.close();
    await expect(pool.run()).rejects.toThrow(/the cpu-parallel pool is closed/);
  });
});
