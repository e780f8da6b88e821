import { describe, expect, it } from 'vitest';
import { DTYPE_BYTES } from '../../../src/graph/dtype.ts';
import { elementCount, type Graph } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { readTflite } from '../../../src/io/tflite/read-tflite.ts';
import { readReferenceModel, referenceModelsPresent, type ReferenceModel } from './reference-models.ts';

/** Op histogram with convolutions split by weight layout: OHWI is CONV_2D, 1HWO DEPTHWISE_CONV_2D. */
function histogram(graph: Graph): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const node of graph.nodes) {
    const key = node.op === 'Conv' ? `Conv/${node.weightLayout}` : node.op;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const shapeOf = (graph: Graph, name: string): readonly number[] | undefined => graph.tensors.get(name)?.shape;

interface Facts {
  readonly nodes: number;
  readonly histogram: Record<string, number>;
  readonly inputs: Record<string, number[]>;
  readonly outputs: Record<string, number[]>;
  /** graphToProblem(graph, { elementSize: 4 }): record count and the sum of sizes. */
  readonly records: number;
  readonly naive: number;
  readonly first: string;
  readonly last: string;
}

const FACTS: Record<ReferenceModel, Facts> = {
  'mobilenet_v2_1.0_224_quant.tflite': {
    nodes: 66,
    histogram: { 'Conv/OHWI': 36, 'Conv/1HWO': 17, Add: 10, AveragePool: 1, Reshape: 1, Softmax: 1 },
    inputs: { input: [1, 224, 224, 3] },
    outputs: { 'MobilenetV2/Predictions/Softmax': [1, 1001] },
    records: 65,
    naive: 27_591_112, // 26.31 MiB
    first: 'Conv [1,112,112,32]',
    last: 'Softmax [1,1001]',
  },
  'mobilenet_v1_1.0_224_quant_embedding_extractor.tflite': {
    nodes: 28,
    histogram: { 'Conv/OHWI': 14, 'Conv/1HWO': 13, AveragePool: 1 },
    inputs: { input: [1, 224, 224, 3] },
    outputs: { 'MobilenetV1/Logits/AvgPool_1a/AvgPool': [1, 1, 1, 1024] },
    records: 27,
    naive: 20_170_752,
    first: 'Conv [1,112,112,32]',
    last: 'AveragePool [1,1,1,1024]',
  },
  'face_detection_front.tflite': {
    nodes: 90,
    histogram: { 'Conv/OHWI': 21, 'Conv/1HWO': 16, Relu: 17, Add: 16, Pad: 11, MaxPool: 3, Reshape: 4, Concat: 2 },
    inputs: { input: [1, 128, 128, 3] },
    outputs: { regressors: [1, 896, 16], classificators: [1, 896, 1] },
    records: 88,
    naive: 9_640_960,
    first: 'Conv [1,64,64,24]',
    last: 'Concat [1,896,16]',
  },
  'deeplabv3_257_mv_gpu.tflite': {
    nodes: 70,
    histogram: { 'Conv/OHWI': 38, 'Conv/1HWO': 17, Add: 10, AveragePool: 1, Resize: 3, Concat: 1 },
    inputs: { sub_7: [1, 257, 257, 3] },
    outputs: { ResizeBilinear_3: [1, 257, 257, 21] },
    records: 69,
    naive: 51_082_904,
    first: 'Conv [1,129,129,16]',
    last: 'Resize [1,257,257,21]',
  },
};

describe.skipIf(!referenceModelsPresent())('readTflite on the reference models', () => {
  const graphs = new Map<ReferenceModel, Graph>();
  const graph = (model: ReferenceModel): Graph => {
    if (!graphs.has(model)) graphs.set(model, readTflite(readReferenceModel(model), model));
    return graphs.get(model)!;
  };
  const describeNode = (g: Graph, index: number): string => `${g.nodes[index].op} [${shapeOf(g, g.nodes[index].outputs[0])}]`;

  for (const [model, facts] of Object.entries(FACTS) as [ReferenceModel, Facts][]) {
    describe(model, () => {
      it('has the expected operators, in order', () => {
        const g = graph(model);
        expect(g.layout).toBe('NHWC');
        expect(g.nodes).toHaveLength(facts.nodes);
        expect(histogram(g)).toEqual(facts.histogram);
        expect(describeNode(g, 0)).toBe(facts.first);
        expect(describeNode(g, g.nodes.length - 1)).toBe(facts.last);
      });

      it('has the expected graph inputs and outputs', () => {
        const g = graph(model);
        expect(Object.fromEntries(g.inputs.map((name) => [name, shapeOf(g, name)]))).toEqual(facts.inputs);
        expect(Object.fromEntries(g.outputs.map((name) => [name, shapeOf(g, name)]))).toEqual(facts.outputs);
        expect(g.inputs).toEqual(Object.keys(facts.inputs));
        expect(g.outputs).toEqual(Object.keys(facts.outputs));
      });

      it('keeps every constant as data of the right length', () => {
        const g = graph(model);
        const constants = [...g.tensors.values()].filter((t) => t.constant);
        expect(constants.length).toBeGreaterThan(0);
        for (const tensor of constants) {
          expect(tensor.data, tensor.name).toBeDefined();
          expect(tensor.data!.byteLength, tensor.name).toBe(elementCount(tensor.shape) * DTYPE_BYTES[tensor.dtype]);
        }
      });

      it('gives the expected usage records at 4 bytes per element', () => {
        const problem = graphToProblem(graph(model), { elementSize: 4 });
        expect(problem.records).toHaveLength(facts.records);
        expect(problem.records.reduce((sum, r) => sum + r.size, 0)).toBe(facts.naive);
        expect(problem.operatorCount).toBe(facts.nodes);
      });
    });
  }

  it('reads MobileNet v2 as 65 records of 26.3 MiB in all (the blog post and paper)', () => {
    const problem = graphToProblem(graph('mobilenet_v2_1.0_224_quant.tflite'), { elementSize: 4 });
    expect(problem.records).toHaveLength(65);
    expect(problem.records.reduce((sum, r) => sum + r.size, 0) / 2 ** 20).toBeCloseTo(26.31, 2);
  });

  it('keeps DeepLab v3 dilations and the bilinear resizes with align_corners', () => {
    const g = graph('deeplabv3_257_mv_gpu.tflite');
    const dilations = g.nodes.flatMap((n) => (n.op === 'Conv' && n.dilations[0] > 1 ? [n.dilations[0]] : []));
    expect(dilations).toEqual([2, 2, 2, 2, 2, 2, 2, 4, 4, 4]);
    const resizes = g.nodes.flatMap((n) => (n.op === 'Resize' ? [[n.mode, n.size, n.alignCorners, n.halfPixelCenters]] : []));
    expect(resizes).toEqual([
      ['bilinear', [33, 33], true, false],
      ['bilinear', [33, 33], true, false],
      ['bilinear', [257, 257], true, false],
    ]);
  });

  it('reads the channel padding of the face detector', () => {
    const g = graph('face_detection_front.tflite');
    const pads = g.nodes.flatMap((n) => (n.op === 'Pad' ? [n.pads[3][1]] : []));
    expect(pads).toEqual([4, 4, 4, 6, 6, 8, 8, 8, 8, 8, 8]);
    for (const node of g.nodes)
      if (node.op === 'Pad')
        expect(node.pads.slice(0, 3)).toEqual([
          [0, 0],
          [0, 0],
          [0, 0],
        ]);
  });
});
