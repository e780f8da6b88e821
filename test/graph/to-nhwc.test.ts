import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { executionRecords } from '../../src/backends/execution-records.ts';
import { seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { elementCount, GraphError, type Graph, type Node } from '../../src/graph/ir.ts';
import { inPlaceLayer } from '../../src/graph/layer-memory.ts';
import { plannedProblem, type RecordOptions } from '../../src/graph/lifetimes.ts';
import { toNchw } from '../../src/graph/to-nchw.ts';
import { nhwcWherePossible, toNhwc } from '../../src/graph/to-nhwc.ts';
import { readOnnx } from '../../src/io/onnx/read-onnx.ts';
import { writeOnnx } from '../../src/io/onnx/write-onnx.ts';
import { relativeError, transpose4 } from '../../src/measuring/peer-session.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { GraphBuilder, nchwNetwork, nhwcNetwork } from '../io/onnx/graphs.ts';

const nodeOf = (graph: Graph, output: string): Node => graph.nodes.find((n) => n.outputs.includes(output))!;
const shapeOf = (graph: Graph, name: string): readonly number[] => graph.tensors.get(name)!.shape;
const valid = { kind: 'valid' } as const;
type PadNode = Extract<Node, { op: 'Pad' }>;

/** An NCHW shape's NHWC permutation. */
const nhwcOf = ([n, c, h, w]: readonly number[]): number[] => [n, h, w, c];

/** Runs a weighted graph on the CPU backend under `records`, the NCHW inputs given (each 4-D one put in NHWC order where the planned graph is NHWC). */
async function runCpu(graph: Graph, records: RecordOptions, nchwInputs: ReadonlyMap<string, Float32Array>): Promise<{ planned: Graph; outputs: Map<string, Float32Array> }> {
  const { graph: planned, problem } = plannedProblem(graph, records);
  const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
  const prepared = await cpuBackend.prepare({ graph: planned, problem, plan });
  const inputs = new Map(
    [...nchwInputs].map(([name, values]) => [name, planned.layout === 'NHWC' && shapeOf(graph, name).length === 4 ? transpose4(values, nhwcOf(shapeOf(graph, name)), false) : values]),
  );
  return { planned, outputs: await prepared.infer(inputs) };
}

describe('toNhwc', () => {
  it('returns an NHWC graph as it is', () => {
    const graph = nhwcNetwork();
    expect(toNhwc(graph)).toBe(graph);
  });

  it('undoes toNchw: the same shapes, axes and pads, convolution weights kept OIHW', () => {
    const graph = nhwcNetwork(true);
    const back = toNhwc(toNchw(graph));
    expect(back.layout).toBe('NHWC');
    expect(back.nodes.map((n) => n.name)).toEqual(graph.nodes.map((n) => n.name));
    for (const [name, tensor] of graph.tensors) {
      // Weights stay in the NCHW graph's OIHW; the per-channel scale becomes [1, 1, 1, C].
      if (name.endsWith('/w') || name === 'branch/w16' || name === 'scale') continue;
      expect(shapeOf(back, name), name).toEqual(tensor.shape);
    }
    expect(shapeOf(back, 'conv1/w')).toEqual([8, 3, 3, 3]);
    expect(shapeOf(back, 'scale')).toEqual([1, 1, 1, 16]);
    for (const node of back.nodes) if (node.op === 'Conv') expect(node.weightLayout).toBe('OIHW');
    expect(nodeOf(back, 'cat')).toMatchObject({ axis: 3 });
    expect((nodeOf(back, 'padded') as PadNode).pads).toEqual((nodeOf(graph, 'padded') as PadNode).pads);
    expect(nodeOf(back, 'mean')).toMatchObject({ axes: [1, 2] });
    expect(nodeOf(back, 'squeezed')).toMatchObject({ axes: [1, 2] });
  });

  it('reads a 4-D tensor that NHWC orders differently through a Transpose to NCHW order, and writes such a Reshape result through one back', () => {
    const b = new GraphBuilder('order', 'NCHW');
    b.input('x', [1, 2, 4, 4]);
    b.op({ op: 'Reshape', shape: [1, 2, 16] }, ['x'], 'rows');
    b.op({ op: 'Reshape', shape: [1, 4, 2, 4] }, ['rows'], 'grid');
    b.op({ op: 'Flatten', axis: 1 }, ['grid'], 'flat');
    const converted = toNhwc(b.build(['flat']));
    expect(converted.nodes.map((n) => `${n.op}:${n.inputs[0]}->${n.outputs[0]}`)).toEqual([
      'Transpose:x->x@nchw',
      'Reshape:x@nchw->rows',
      'Reshape:rows->grid@nchw',
      // The Flatten reads grid in NCHW order, as the Reshape wrote it: no Transpose into NHWC order and back.
      'Flatten:grid@nchw->flat',
    ]);
    expect(shapeOf(converted, 'grid@nchw')).toEqual([1, 4, 2, 4]);
    expect(converted.tensors.has('grid')).toBe(false);
  });

  it('takes two Transposes in a row as one', () => {
    const b = new GraphBuilder('pair', 'NCHW');
    b.input('x', [1, 3, 4, 5]);
    b.op({ op: 'Transpose', perm: [0, 2, 3, 1] }, ['x'], 't');
    b.op({ op: 'Reshape', shape: [1, 60] }, ['t'], 'flat');
    const converted = toNhwc(b.build(['flat']));
    // t holds x in NHWC order, which is x itself here: the Reshape reads x.
    expect(converted.nodes.map((n) => `${n.op}:${n.inputs[0]}`)).toEqual(['Reshape:x']);
    expect(converted.tensors.has('t')).toBe(false);
  });

  it('refuses what it cannot convert, and nhwcWherePossible then keeps the graph', () => {
    const b = new GraphBuilder('norm', 'NCHW');
    b.input('x', [1, 2, 3, 4]);
    b.op({ op: 'LayerNormalization', axis: -1, epsilon: 1e-5 }, ['x', b.constant('s', [4]), b.constant('o', [4])], 'y');
    const graph = b.build(['y']);
    expect(() => toNhwc(graph)).toThrow(GraphError);
    expect(() => toNhwc(graph)).toThrow(/^node y_op \(LayerNormalization\): converting norm from NCHW to NHWC is not supported: it works on a 4-D tensor\.$/);
    expect(nhwcWherePossible(graph)).toBe(graph);
    // The NCHW test network's keepDims FullyConnected is of a 3-D tensor: it converts.
    expect(toNhwc(nchwNetwork()).layout).toBe('NHWC');
  });

  it('keeps a 4-D constant whose elements NHWC would order differently out of the conversion', () => {
    const b = new GraphBuilder('bias', 'NCHW');
    b.input('x', [1, 2, 3, 3]);
    b.op({ op: 'Add', activation: 'none' }, ['x', b.constant('pos', [1, 2, 3, 3])], 'y');
    expect(() => toNhwc(b.build(['y']))).toThrow(/constant pos \[1,2,3,3\] of bias orders its elements differently in NHWC/);
  });

  it.each(['zoo:mobilenet-v2?input=96', 'zoo:squeezenet-1.1?input=67', 'zoo:deeplab-v3?input=65'])(
    '%s in NCHW: the CPU executor runs it laid out NHWC, in place, computing what the NCHW graph computes',
    async (source) => {
      const nchw = toNchw(weightedGraph(buildZooModel(source), 'seeded', 1));
      const inputs = seededInputs(nchw, 1);
      const records = executionRecords(cpuBackend);
      const asIs = await runCpu(nchw, { ...records, nhwc: false }, inputs);
      const laidOut = await runCpu(nchw, records, inputs);
      expect(asIs.planned.layout).toBe('NCHW');
      expect(laidOut.planned.layout).toBe('NHWC');
      // Every convolution runs in the executor's own form (packed weights where they lie, its scratch planned).
      for (const node of laidOut.planned.nodes) if (node.op === 'Conv') expect(inPlaceLayer(laidOut.planned, node), node.name).toBeDefined();
      for (const name of nchw.outputs) {
        const shape = shapeOf(nchw, name);
        const got = laidOut.outputs.get(name)!;
        const inNchw = shape.length === 4 ? transpose4(got, nhwcOf(shape), true) : got;
        expect(elementCount(shape)).toBe(got.length);
        expect(relativeError(new Map([[name, inNchw]]), new Map([[name, asIs.outputs.get(name)!]])), name).toBeLessThan(1e-5);
      }
    },
  );

  it("runs BlazeFace's ONNX file (its heads reshape NHWC-ordered data after the writer's Transposes) computing what onnxruntime computes on it, as read and laid out NHWC", async () => {
    const file = writeOnnx(buildZooModel('zoo:blazeface'), { weights: 'random', seed: 1 });
    const nchw = weightedGraph(readOnnx(file, 'blazeface.onnx'), 'file', 1);
    expect(nchw.nodes.filter((n) => n.op === 'Transpose')).toHaveLength(4);
    const inputs = seededInputs(nchw, 1);
    const records = executionRecords(cpuBackend);
    const asIs = await runCpu(nchw, { ...records, nhwc: false }, inputs);
    const laidOut = await runCpu(nchw, records, inputs);
    expect(laidOut.planned.layout).toBe('NHWC');
    // Each of the file's Transposes meets the one the layout puts before the reshape: both dropped.
    expect(laidOut.planned.nodes.filter((n) => n.op === 'Transpose')).toHaveLength(0);
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(file);
    const feeds = Object.fromEntries(nchw.inputs.map((name) => [name, new ort.Tensor('float32', inputs.get(name)!, [...shapeOf(nchw, name)])]));
    const theirs = new Map(Object.entries(await session.run(feeds)).map(([name, tensor]) => [name, tensor.data as Float32Array]));
    await session.release();
    expect(relativeError(asIs.outputs, theirs)).toBeLessThan(1e-5);
    expect(relativeError(laidOut.outputs, theirs)).toBeLessThan(1e-5);
  });
});

describe('the CPU backends plan and run NCHW graphs laid out NHWC', () => {
  it('asks for the record option nhwc', () => {
    expect(executionRecords(cpuBackend)).toMatchObject({ nhwc: true });
    // A 1x1 head on an NCHW input: planned NHWC, its input record of the same size.
    const b = new GraphBuilder('head', 'NCHW');
    b.input('x', [1, 8, 4, 4]);
    b.op(
      { op: 'Conv', kernel: [1, 1], strides: [1, 1], dilations: [1, 1], padding: valid, groups: 1, outChannels: 2, weightLayout: 'OIHW', activation: 'none' },
      ['x', b.constant('w', [2, 8, 1, 1]), ''],
      'y',
    );
    const { graph } = plannedProblem(b.build(['y']), executionRecords(cpuBackend));
    expect(graph.layout).toBe('NHWC');
    expect(shapeOf(graph, 'x')).toEqual([1, 4, 4, 8]);
  });
});
