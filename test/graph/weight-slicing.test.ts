import { afterEach, describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { setSimdEnabled } from '../../src/backends/cpu/kernels/index.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { elementCount, type Graph } from '../../src/graph/ir.ts';
import { GEMM_PANEL, layerMemory } from '../../src/graph/layer-memory.ts';
import { plannedProblem } from '../../src/graph/lifetimes.ts';
import { sliceWeights } from '../../src/graph/weight-slicing.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

/** A 3x3 convolution by im2col (12 input channels) and one by Winograd (40), a 1x1, a depthwise and a grouped one, and two FullyConnected layers. */
function network(): Graph {
  const b = new NetworkBuilder('slicing');
  let x = b.input('input', [1, 8, 8, 12]);
  x = b.conv('conv3x3', x, { out: 40, kernel: 3, activation: 'relu' });
  x = b.conv('winograd', x, { out: 16, kernel: 3, activation: 'relu' });
  x = b.conv('conv1x1', x, { out: 24, kernel: 1, activation: 'relu6' });
  x = b.depthwise('depthwise', x, { kernel: 3 });
  x = b.conv('grouped', x, { out: 24, kernel: 3, groups: 2 });
  x = b.flatten('flatten', x);
  x = b.dense('fc1', x, 100, 'relu');
  x = b.dense('fc2', x, 10);
  return b.build([b.softmax('softmax', x)]);
}

/** Bytes of `channels` output channels of a layer whose packed rows are k long: whole panels and their bias. */
const sliceBytes = (k: number, channels: number): number => Math.ceil(channels / GEMM_PANEL) * GEMM_PANEL * (k + 1) * 4;

async function run(graph: Graph): Promise<Map<string, Float32Array>> {
  const { graph: planned, problem } = plannedProblem(graph, { elementSize: 4, scratch: true });
  const prepared = await cpuBackend.prepare({ graph: planned, problem, plan: planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 }) });
  const outputs = await prepared.infer(seededInputs(planned, 3));
  return new Map([...outputs].map(([name, values]) => [name, values.slice()]));
}

afterEach(() => setSimdEnabled(true));

describe('weight slicing', () => {
  const limit = 6000;
  const graph = network();
  const sliced = sliceWeights(graph, limit);

  it('cuts each oversized FullyConnected and one-group convolution into the fewest slices of whole panels within the limit', () => {
    for (const [name, k, channels] of [
      ['conv3x3', 3 * 3 * 12, 40],
      // Winograd: a panel's taps in each of the 16 positions, 40 rows each.
      ['winograd', 16 * 40, 16],
      ['conv1x1', 16, 24],
      ['fc1', 8 * 8 * 24, 100],
      ['fc2', 100, 10],
    ] as const) {
      const whole = layerMemory(graph, graph.nodes.find((n) => n.name === name)!).weightBytes;
      const parts = sliced.nodes.filter((n) => n.name.startsWith(`${name}@slice`));
      if (whole <= limit) {
        expect(parts, name).toHaveLength(0);
        continue;
      }
      const widths = parts.map(
        (n) => (elementCount(sliced.tensors.get(n.outputs[0])!.shape) / elementCount(graph.tensors.get(graph.nodes.find((m) => m.name === name)!.outputs[0])!.shape)) * channels,
      );
      expect(
        widths.reduce((a, c) => a + c, 0),
        name,
      ).toBe(channels);
      // Every slice but the last is a whole number of panels; one more panel would not fit (unless a slice is one panel).
      const widest = Math.max(...widths);
      expect(widest % GEMM_PANEL, name).toBe(0);
      expect(sliceBytes(k, widest) <= limit || widest === GEMM_PANEL, name).toBe(true);
      expect(sliceBytes(k, widest + GEMM_PANEL), name).toBeGreaterThan(limit);
      for (const part of parts) expect(layerMemory(sliced, part).weightBytes, part.name).toBeLessThanOrEqual(Math.max(limit, sliceBytes(k, GEMM_PANEL)));
      const concat = sliced.nodes.find((n) => n.name === `${name}@concat`)!;
      expect(concat.op).toBe('Concat');
      expect(concat.inputs).toEqual(parts.map((p) => p.outputs[0]));
      expect(concat.outputs).toEqual(graph.nodes.find((n) => n.name === name)!.outputs);
    }
    // Depthwise and grouped convolutions stay whole.
    expect(sliced.nodes.some((n) => n.name.startsWith('depthwise@') || n.name.startsWith('grouped@'))).toBe(false);
  });

  it('slices a graph without weight values the same way (planning only)', () => {
    expect(sliced.nodes.map((n) => n.name)).toEqual(sliceWeights(weightedGraph(graph, 'seeded', 1), limit).nodes.map((n) => n.name));
    expect([...sliced.tensors.values()].filter((t) => t.constant).every((t) => t.data === undefined)).toBe(true);
    expect(sliceWeights(graph, 10 ** 9)).toBe(graph);
  });

  it.each([true, false])('computes outputs bit-identical to the unsliced network (SIMD %s)', async (simd) => {
    setSimdEnabled(simd);
    const weighted = weightedGraph(graph, 'seeded', 5);
    const slices = sliceWeights(weighted, limit);
    expect(slices.nodes.length).toBeGreaterThan(weighted.nodes.length);
    expect(bitIdentical(await run(slices), await run(weighted))).toBe(true);
  });
});

describe('weight slicing of an embedding table', () => {
  /** A Gather of a [40, 12] table by token ids, a LayerNorm, and a head tied to the table (one constant read by two layers). */
  function embedding(): Graph {
    const b = new NetworkBuilder('embedding');
    const ids = b.input('ids', [1, 9], 'int32');
    const table = b.parameter('table', [40, 12]);
    const x = b.layerNorm('ln', b.gather('lookup', table, ids), 1e-5);
    return b.build([b.dense('head', x, 40, 'none', { keepDims: true, weights: table, bias: false })]);
  }
  const graph = embedding();
  const limit = 7 * 12 * 4;
  const sliced = sliceWeights(graph, limit);

  it('cuts the table into runs of rows within the limit, chained: each Gather takes the one before', () => {
    const parts = sliced.nodes.filter((n) => n.name.startsWith('lookup@slice'));
    expect(parts.map((n) => (n.op === 'Gather' ? n.rows : undefined))).toEqual([0, 7, 14, 21, 28, 35].map((start) => ({ start, of: 40 })));
    expect(parts.map((n) => sliced.tensors.get(n.inputs[0])!.shape)).toEqual([...new Array(5).fill([7, 12]), [5, 12]]);
    parts.forEach((part, k) => {
      expect(part.inputs.slice(1)).toEqual(k === 0 ? ['ids'] : ['ids', parts[k - 1].outputs[0]]);
      expect(layerMemory(sliced, part).weightBytes).toBeLessThanOrEqual(limit);
    });
    expect(parts[parts.length - 1].outputs).toEqual(['lookup']);
    // The tied head is sliced as a FullyConnected of its own, with slices of its own.
    expect(sliced.nodes.filter((n) => n.name.startsWith('head@slice')).length).toBeGreaterThan(1);
  });

  it('computes the same logits, bit for bit', async () => {
    const weighted = weightedGraph(graph, 'seeded', 4);
    const outputs = await run(sliceWeights(weighted, limit));
    expect(bitIdentical(outputs, await run(weighted))).toBe(true);
    // Whole-number token ids in [0, 40): every one of them picks a row.
    expect(
      seededInputs(weighted, 3)
        .get('ids')!
        .every((v) => Number.isInteger(v) && v >= 0 && v < 40),
    ).toBe(true);
  });
});
