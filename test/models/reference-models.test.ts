import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Graph, Node } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { readTflite } from '../../src/io/tflite/read-tflite.ts';
import { buildZooModel } from '../../src/models/zoo.ts';

const DIR = '../shared/reference-models';
const present = existsSync(DIR);
if (!present) console.warn(`skipping the comparisons with the reference models: ${DIR} is absent (it ships beside the repository).`);

/** What must agree op for op: the op, its output shape, and the attributes that shape memory. */
function signature(graph: Graph, node: Node): object {
  const common = { op: node.op, output: graph.tensors.get(node.outputs[0])?.shape };
  switch (node.op) {
    case 'Conv':
      return {
        ...common,
        kernel: node.kernel,
        strides: node.strides,
        dilations: node.dilations,
        padding: node.padding.kind,
        depthwise: node.groups > 1,
        activation: node.activation,
      };
    case 'AveragePool':
    case 'MaxPool':
      return { ...common, kernel: node.kernel, strides: node.strides, padding: node.padding.kind };
    case 'Resize':
      return { ...common, mode: node.mode, alignCorners: node.alignCorners };
    case 'Pad':
      return { ...common, pads: node.pads };
    case 'Add':
    case 'Concat':
      return { ...common, activation: node.activation };
    default:
      return common;
  }
}

describe.skipIf(!present)('the zoo is the network of the paper, op for op', () => {
  it.each([
    ['zoo:deeplab-v3', 'deeplabv3_257_mv_gpu.tflite', undefined],
    ['zoo:blazeface', 'face_detection_front.tflite', undefined],
    ['zoo:mobilenet-v2', 'mobilenet_v2_1.0_224_quant.tflite', undefined],
    // The coral v1 file is the body and its average pool, without the classifier.
    ['zoo:mobilenet-v1', 'mobilenet_v1_1.0_224_quant_embedding_extractor.tflite', 28],
  ] as const)('%s matches %s', (source, file, prefix) => {
    const path = `${DIR}/${file}`;
    const reference = readTflite(new Uint8Array(readFileSync(path)), path);
    const zoo = buildZooModel(source);
    const count = prefix ?? reference.nodes.length;
    expect(reference.nodes.length).toBe(count);
    if (prefix === undefined) expect(zoo.nodes.length).toBe(count);
    const ours = zoo.nodes.slice(0, count).map((node) => signature(zoo, node));
    const theirs = reference.nodes.map((node) => signature(reference, node));
    ours.forEach((op, k) => expect(op, `operator ${k} (${zoo.nodes[k].name} vs ${reference.nodes[k].name})`).toEqual(theirs[k]));
    if (prefix === undefined) {
      // Same records too (names aside), at the paper's fp32.
      const strip = (graph: Graph) => graphToProblem(graph, { elementSize: 4 }).records.map(({ size, first, last }) => ({ size, first, last }));
      expect(strip(zoo)).toEqual(strip(reference));
    }
  });
});
