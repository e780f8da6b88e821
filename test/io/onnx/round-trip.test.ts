import { describe, expect, it } from 'vitest';
import type { Graph } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { toNchw } from '../../../src/graph/to-nchw.ts';
import { nhwcWherePossible } from '../../../src/graph/to-nhwc.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { EXTERNAL, NOT_EXPORTED_LOCATION, onnx } from '../../../src/io/onnx/proto.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { GraphBuilder, nchwNetwork, nhwcNetwork, nhwcOrderNetwork } from './graphs.ts';
import { attr, init, model, node, value } from './onnx-builder.ts';

/** Each network, and the Transposes its ONNX file reads back with (the writer's, around reshapes of NHWC-ordered data). */
const NETWORKS: [string, () => Graph, number][] = [
  ['NHWC network without data', () => nhwcNetwork(false), 0],
  ['NHWC network with data', () => nhwcNetwork(true), 0],
  ['NCHW network', () => nchwNetwork(), 0],
  ['network with NHWC-order reshapes', () => nhwcOrderNetwork(), 4],
];

const records = (graph: Graph, includeGraphIO = false) => graphToProblem(graph, { includeGraphIO }).records;
const decode = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes).graph as InstanceType<typeof onnx.GraphProto>;

describe('readOnnx(writeOnnx(graph))', () => {
  for (const [title, make, transposes] of NETWORKS) {
    for (const weights of ['random', 'none'] as const) {
      for (const opset of [11, 13, 18]) {
        it(`gives the records of the ${title}, laid out as the CPU executors run it (weights ${weights}, opset ${opset})`, () => {
          const graph = make();
          const back = readOnnx(writeOnnx(graph, { weights, opset, seed: 3 }), 'model.onnx');
          expect(records(nhwcWherePossible(back))).toEqual(records(nhwcWherePossible(graph)));
          expect(records(nhwcWherePossible(back), true)).toEqual(records(nhwcWherePossible(graph), true));
          // As read (NCHW), the file's own Transposes are records of their own.
          expect(records(back).length).toBe(records(graph).length + transposes);
          expect(back.inputs).toEqual(graph.inputs);
          expect(back.outputs).toEqual(graph.outputs);
        });
      }
    }

    it(`restores the ops and fused activations of the ${title}`, () => {
      const graph = make();
      const back = readOnnx(writeOnnx(graph, { weights: 'none' }), 'model.onnx');
      expect(back.nodes.filter((n) => n.op === 'Transpose')).toHaveLength(transposes);
      // a Flatten that needs NHWC order is written (and read back) as Transpose + Reshape
      const op = (n: Graph['nodes'][number]) => (n.op === 'Flatten' && graph.name === 'nhwc-order' ? 'Reshape' : n.op);
      const summary = (g: Graph) => g.nodes.map((n) => `${n.outputs[0]}:${op(n)}:${'activation' in n ? n.activation : ''}`);
      expect(summary(nhwcWherePossible(back))).toEqual(summary(nhwcWherePossible(graph)));
    });
  }

  it('reads NCHW shapes back and the converted attributes', () => {
    const original = nhwcNetwork();
    const converted = toNchw(original);
    const back = readOnnx(writeOnnx(original, { weights: 'none' }), 'model.onnx');
    expect(back.layout).toBe('NCHW');
    for (const [name, tensor] of back.tensors) {
      expect(tensor.shape, name).toEqual(converted.tensors.get(name)!.shape);
    }
    const cat = back.nodes.find((n) => n.outputs[0] === 'cat');
    expect(cat).toMatchObject({ op: 'Concat', axis: 1 });
    expect(back.nodes.find((n) => n.outputs[0] === 'conv1')).toMatchObject({
      op: 'Conv',
      weightLayout: 'OIHW',
      padding: { kind: 'explicit', pads: [0, 0, 1, 1] }, // TF SAME, 3x3 stride 2 on 32: the odd pixel after
      activation: 'relu6',
    });
    expect(back.nodes.find((n) => n.outputs[0] === 'dw')).toMatchObject({ op: 'Conv', groups: 8, outChannels: 8, activation: 'relu' });
    expect(back.nodes.find((n) => n.outputs[0] === 'up')).toMatchObject({ op: 'Resize', mode: 'bilinear', size: [8, 8], alignCorners: false, halfPixelCenters: true });
    expect(back.nodes.find((n) => n.outputs[0] === 'up2')).toMatchObject({ op: 'Resize', mode: 'nearest', size: [16, 16], alignCorners: true, halfPixelCenters: false });
    expect(back.nodes.find((n) => n.outputs[0] === 'fc4d')).toMatchObject({ op: 'FullyConnected', outFeatures: 10, keepDims: false, inputs: ['mean', 'fc4d/w'] });
  });

  it('writes the extra tensors it documents, with value_info for every intermediate', () => {
    const graph = nhwcNetwork();
    const written = decode(writeOnnx(graph, { weights: 'none' }));
    const infos = new Set(written.valueInfo.map((v) => v.name));
    for (const name of ['conv1:pre', 'dw:pre', 'branch:pre', 'sum:pre', 'avgpool:pre', 'valid:pre', 'fc:pre', 'fc4d:flat']) expect(infos).toContain(name);
    const io = new Set([...graph.inputs, ...graph.outputs]);
    const initializers = new Set(written.initializer.map((t) => t.name));
    for (const n of written.node) {
      for (const name of [...(n.input ?? []), ...(n.output ?? [])]) if (name && !io.has(name) && !initializers.has(name)) expect(infos, name).toContain(name);
    }
    const keepDims = decode(writeOnnx(nchwNetwork(), { weights: 'none' }));
    expect(keepDims.valueInfo.map((v) => v.name)).toEqual(expect.arrayContaining(['fc:flat', 'fc:2d', 'fc:pre']));
  });

  it('encodes weights "none" as EXTERNAL initializers at weights-not-exported, read back without data', () => {
    const graph = nhwcNetwork(true);
    const bytes = writeOnnx(graph, { weights: 'none' });
    const written = decode(bytes);
    const constants = [...graph.tensors.values()].filter((t) => t.constant).map((t) => t.name);
    for (const name of constants) {
      const initializer = written.initializer.find((t) => t.name === name)!;
      expect(initializer.dataLocation).toBe(EXTERNAL);
      expect(initializer.externalData).toEqual([expect.objectContaining({ key: 'location', value: NOT_EXPORTED_LOCATION })]);
      expect((initializer.rawData?.length ?? 0) + (initializer.floatData?.length ?? 0)).toBe(0);
    }
    const back = readOnnx(bytes, 'model.onnx');
    for (const name of constants) expect(back.tensors.get(name), name).toMatchObject({ constant: true, data: undefined });
    expect(bytes.length).toBeLessThan(8000);
  });

  it('writes seeded random weights: same seed, same bytes; another seed, other bytes', () => {
    const graph = nhwcNetwork(false);
    const a = writeOnnx(graph, { weights: 'random', seed: 42 });
    expect(writeOnnx(graph, { weights: 'random', seed: 42 })).toEqual(a);
    expect(writeOnnx(graph, { weights: 'random', seed: 43 })).not.toEqual(a);
    const back = readOnnx(a, 'model.onnx');
    const weights = back.tensors.get('conv1/w')!.data as Float32Array;
    expect(weights).toBeInstanceOf(Float32Array);
    expect(weights.length).toBe(8 * 3 * 3 * 3);
    expect(weights.every((v) => Math.abs(v) <= 0.1)).toBe(true);
    expect(new Set(weights).size).toBeGreaterThan(100);
    expect((back.tensors.get('conv1/b')!.data as Float32Array).every((v) => Math.abs(v) <= 0.01)).toBe(true);
  });

  it('keeps existing constant data (converted to float32, moved to OIHW)', () => {
    const graph = nhwcNetwork(true);
    const back = readOnnx(writeOnnx(graph, { weights: 'random', seed: 1 }), 'model.onnx');
    const converted = toNchw(graph);
    expect([...(back.tensors.get('conv1/w')!.data as Float32Array)]).toEqual([...(converted.tensors.get('conv1/w')!.data as Float32Array)]);
    // float16 bits -> float32 values 0, 1, 2, ... in OIHW order
    const half = back.tensors.get('branch/w16')!;
    expect(half.dtype).toBe('float32');
    const values = [...(half.data as Float32Array)];
    expect(values[0]).toBe(0);
    expect(values[1]).toBe(8); // [o=0, i=0, h=0, w=1] was OHWI element [0, 0, 1, 0] = 8
  });

  it('writes the same model twice from a graph read back (markers do not pile up)', () => {
    const once = readOnnx(writeOnnx(nhwcNetwork(), { weights: 'none' }), 'a.onnx');
    const twice = readOnnx(writeOnnx(once, { weights: 'none' }), 'b.onnx');
    expect(records(twice, true)).toEqual(records(once, true));
    expect(twice.nodes).toEqual(once.nodes);
  });

  it('writes a Transpose around reshapes that flatten in NHWC order, reads it back as the Transpose it is, and laid out NHWC the pair is gone', () => {
    const written = decode(writeOnnx(nhwcOrderNetwork(), { weights: 'none' }));
    const transposes = written.node!.filter((n) => n.opType === 'Transpose');
    expect(transposes.map((n) => [n.input![0], n.output![0]])).toEqual([
      ['head', 'boxes:nhwc'],
      ['grid:nhwc-out', 'grid'],
      ['grid', 'flat:nhwc'],
      ['head', 'fc:nhwc'],
    ]);
    const back = readOnnx(writeOnnx(nhwcOrderNetwork(), { weights: 'none' }), 'model.onnx');
    // As read: what the file computes, its element order too (a Reshape of NCHW data would not).
    expect(back.nodes.find((n) => n.outputs[0] === 'boxes:nhwc')).toMatchObject({ op: 'Transpose', inputs: ['head'], perm: [0, 2, 3, 1] });
    expect(back.nodes.find((n) => n.outputs[0] === 'boxes')).toMatchObject({ op: 'Reshape', inputs: ['boxes:nhwc'], shape: [1, 16, 2] });
    expect(back.nodes.find((n) => n.outputs[0] === 'grid')).toMatchObject({ op: 'Transpose', inputs: ['grid:nhwc-out'], perm: [0, 3, 1, 2] });
    expect(back.nodes.find((n) => n.outputs[0] === 'fc')).toMatchObject({ op: 'FullyConnected', inputs: ['fc:nhwc', 'fc/w'], activation: 'relu' });
    for (const name of ['fc:flat', 'fc:pre']) expect(back.tensors.has(name)).toBe(false);
    // Laid out NHWC, each Transpose meets the one the layout needs, and the two are dropped.
    const laidOut = nhwcWherePossible(back);
    expect(laidOut.nodes.filter((n) => n.op === 'Transpose')).toEqual([]);
    expect(laidOut.nodes.find((n) => n.outputs[0] === 'boxes')).toMatchObject({ op: 'Reshape', inputs: ['head'], shape: [1, 16, 2] });
    expect(laidOut.nodes.find((n) => n.outputs[0] === 'grid')).toMatchObject({ op: 'Reshape', inputs: ['boxes'], shape: [1, 2, 8, 2] });
    expect(laidOut.nodes.find((n) => n.outputs[0] === 'fc')).toMatchObject({ op: 'FullyConnected', inputs: ['head', 'fc/w'], activation: 'relu' });
    for (const name of ['boxes:nhwc', 'grid:nhwc-out', 'flat:nhwc', 'fc:nhwc']) expect(laidOut.tensors.has(name), name).toBe(false);
  });

  it('writes Softmax with beta other than 1 as a Mul by `Y:beta` before it, and reads it back as that beta', () => {
    const b = new GraphBuilder('beta', 'NCHW');
    b.input('x', [1, 10]);
    b.op({ op: 'Softmax', axis: -1, beta: 2 }, ['x'], 'y');
    const graph = b.build(['y']);
    const bytes = writeOnnx(graph, { weights: 'none' });
    expect(onnx.ModelProto.decode(bytes).graph!.node!.map((n) => [n.opType, n.input, n.output])).toEqual([
      ['Mul', ['x', 'y:beta'], ['y:scaled']],
      ['Softmax', ['y:scaled'], ['y']],
    ]);
    const back = readOnnx(bytes, 'beta.onnx');
    expect(back.nodes).toEqual(graph.nodes);
    expect(back.tensors.has('y:scaled')).toBe(false);
  });
});

describe('readOnnx fuses only the exporter marker', () => {
  const conv = (output: string) => node('Conv', ['x', 'w'], [output], [attr.ints('kernel_shape', [1, 1]), attr.ints('pads', [0, 0, 0, 0])], 'conv');

  it('fuses Conv -> y:pre -> Relu -> y into one Conv with relu', () => {
    const bytes = model({
      opset: 13,
      nodes: [conv('y:pre'), node('Relu', ['y:pre'], ['y'], [], 'relu'), node('Relu', ['y'], ['z'], [], 'relu2')],
      inputs: [value('x', [1, 2, 4, 4])],
      outputs: [value('z', [1, 3, 4, 4])],
      initializers: [init.external('w', [3, 2, 1, 1])],
    });
    const graph = readOnnx(bytes, 'fused.onnx');
    expect(graph.nodes.map((n) => n.op)).toEqual(['Conv', 'Relu']);
    expect(graph.nodes[0]).toMatchObject({ activation: 'relu', outputs: ['y'] });
    expect(graph.tensors.has('y:pre')).toBe(false);
  });

  it('keeps a standalone activation whose input has another name', () => {
    const bytes = model({
      opset: 13,
      nodes: [conv('t'), node('Relu', ['t'], ['y'], [], 'relu')],
      inputs: [value('x', [1, 2, 4, 4])],
      outputs: [value('y', [1, 3, 4, 4])],
      initializers: [init.external('w', [3, 2, 1, 1])],
    });
    const graph = readOnnx(bytes, 'plain.onnx');
    expect(graph.nodes.map((n) => n.op)).toEqual(['Conv', 'Relu']);
    expect(graphToProblem(graph).records.map((r) => r.id)).toEqual(['t']);
  });

  it('keeps a marker activation whose input has a second reader', () => {
    const bytes = model({
      opset: 13,
      nodes: [conv('y:pre'), node('Relu', ['y:pre'], ['y'], [], 'relu'), node('Add', ['y', 'y:pre'], ['z'], [], 'add')],
      inputs: [value('x', [1, 2, 4, 4])],
      outputs: [value('z', [1, 3, 4, 4])],
      initializers: [init.external('w', [3, 2, 1, 1])],
    });
    expect(readOnnx(bytes, 'shared.onnx').nodes.map((n) => n.op)).toEqual(['Conv', 'Relu', 'Add']);
  });

  it('refuses Clip(-1, 1) that is not a fused activation', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('Clip', ['x', 'lo', 'hi'], ['y'], [], 'clip')],
      inputs: [value('x', [1, 4])],
      outputs: [value('y', [1, 4])],
      initializers: [init.floats('lo', [], [-1]), init.floats('hi', [], [1])],
    });
    expect(() => readOnnx(bytes, 'clip.onnx')).toThrow(/clip.onnx: node clip \(Clip\): Clip\(-1, 1\) is not supported/);
  });
});
