import { describe, expect, it } from 'vitest';
import { GraphError, type Graph } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { ONNX_TYPE, onnx } from '../../../src/io/onnx/proto.ts';
import { nhwcWherePossible } from '../../../src/graph/to-nhwc.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { attr, init, model, node, value } from './onnx-builder.ts';

const GPT2 = 'zoo:gpt-2?tokens=6&layers=1&width=0.25';
const VIT = 'zoo:vit-b-16?input=32&layers=1&width=0.25';

const decode = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes);

describe('ONNX: the transformer ops', () => {
  it('GPT-2 comes back node for node: Gather, LayerNormalization, Gelu (tanh), Transpose, Slice, CausalMask, Softmax with beta, the tied head', () => {
    const graph = buildZooModel(GPT2);
    const back = readOnnx(writeOnnx(graph, { weights: 'none' }), 'gpt-2.onnx');
    expect(back.nodes).toEqual(graph.nodes);
    expect(graphToProblem(back).records).toEqual(graphToProblem(graph).records);
    expect(back.tensors.get('input_ids')).toMatchObject({ dtype: 'int32', shape: [1, 6] });
    // One initializer for the tied table, read by the Gather and by the head.
    expect(back.nodes.filter((n) => n.inputs.includes('gpt2/wte')).map((n) => n.op)).toEqual(['Gather', 'FullyConnected']);
  });

  it('ViT comes back, laid out NHWC, with the same records and the same ops between its image stem and its head', () => {
    const graph = buildZooModel(VIT);
    const read = readOnnx(writeOnnx(graph, { weights: 'none' }), 'vit.onnx');
    // As read, the patches go to NHWC order through the writer's Transpose before their reshape; laid out NHWC, it is gone.
    expect(read.nodes[1]).toMatchObject({ op: 'Transpose', perm: [0, 2, 3, 1] });
    const back = nhwcWherePossible(read);
    expect(graphToProblem(back).records).toEqual(graphToProblem(graph).records);
    // The patch convolution's weights are OIHW now, the 2-D head a Gemm (as every 2-D FullyConnected reads back); all between is 3-D and unchanged.
    expect(back.nodes.slice(1, -1)).toEqual(graph.nodes.slice(1, -1));
    expect(back.nodes.at(-1)).toMatchObject({ op: 'Gemm', transB: true, outputs: ['vit/head'] });
    expect(back.nodes.find((n) => n.op === 'Gelu')).toMatchObject({ approximate: 'none' });
  });

  it('writes what onnxruntime needs: opset 20 for Gelu, int32 token ids, the mask as an Add of 0 and -inf, the scale as a Mul', () => {
    const written = decode(writeOnnx(buildZooModel(GPT2), { weights: 'none' }));
    expect(Number(written.opsetImport[0].version)).toBe(20);
    expect(written.graph!.input![0].type!.tensorType!.elemType).toBe(ONNX_TYPE.INT32);
    const nodes = written.graph!.node!;
    const mask = nodes.find((n) => n.name === 'gpt2/h/block_0/attention/causal_mask')!;
    expect(mask.opType).toBe('Add');
    const maskValues = new Float32Array(new Uint8Array(written.graph!.initializer!.find((i) => i.name === mask.input![1])!.rawData!).buffer);
    expect(Array.from(maskValues.subarray(0, 12))).toEqual([0, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity, 0, 0, -Infinity, -Infinity, -Infinity, -Infinity]);
    const scale = nodes.find((n) => n.output![0] === 'gpt2/h/block_0/attention/softmax:scaled')!;
    expect(scale.opType).toBe('Mul');
    expect(nodes.filter((n) => n.opType === 'LayerNormalization')).toHaveLength(3);
    expect(() => writeOnnx(buildZooModel(GPT2), { weights: 'none', opset: 17 })).toThrow(/Gelu needs opset 20/);
    expect(Number(decode(writeOnnx(buildZooModel('zoo:mobilenet-v2?input=32'), { weights: 'none' })).opsetImport[0].version)).toBe(13);
  });

  it("refuses a Gather of a table slice (weight slicing is a budgeted run's, not a model's)", () => {
    const graph = buildZooModel(GPT2);
    const sliced: Graph = { ...graph, nodes: graph.nodes.map((n) => (n.op === 'Gather' ? { ...n, rows: { start: 0, of: 50257 } } : n)) };
    expect(() => writeOnnx(sliced, { weights: 'none' })).toThrow(GraphError);
  });

  it("reads a foreign model's Gather, LayerNormalization, Gelu and Slice (negative and clamped bounds)", () => {
    const bytes = model({
      opset: 20,
      nodes: [
        node('Gather', ['table', 'ids'], ['embedded'], [attr.int('axis', 0)]),
        node('LayerNormalization', ['embedded', 'gamma', 'beta'], ['normed', '', ''], [attr.int('axis', -1), attr.float('epsilon', 1e-6)]),
        node('Gelu', ['normed'], ['activated'], [attr.string('approximate', 'tanh')]),
        node('Slice', ['activated', 'starts', 'ends', 'axes'], ['y']),
      ],
      inputs: [value('ids', [1, 3], ONNX_TYPE.INT64)],
      outputs: [value('y', undefined)],
      initializers: [
        init.external('table', [10, 4]),
        init.external('gamma', [4]),
        init.external('beta', [4]),
        init.int64('starts', [-2, 0]),
        init.int64('ends', [1000, 3]),
        init.int64('axes', [1, -1]),
      ],
    });
    const graph = readOnnx(bytes, 'foreign.onnx');
    expect(graph.nodes.map((n) => n.op)).toEqual(['Gather', 'LayerNormalization', 'Gelu', 'Slice']);
    expect(graph.nodes[1]).toMatchObject({ axis: -1, inputs: ['embedded', 'gamma', 'beta'] });
    expect(graph.nodes[1].op === 'LayerNormalization' && graph.nodes[1].epsilon).toBeCloseTo(1e-6, 12);
    expect(graph.nodes[2]).toMatchObject({ approximate: 'tanh' });
    expect(graph.nodes[3]).toMatchObject({ axes: [1, 2], starts: [1, 0], ends: [3, 3] });
    expect(graph.tensors.get('y')!.shape).toEqual([1, 2, 3]);
  });

  it('refuses what it cannot run: constant or float indices, Slice steps other than 1', () => {
    const gather = (indices: ReturnType<typeof value> | undefined, initializers = [init.external('table', [10, 4])]) =>
      model({
        opset: 13,
        nodes: [node('Gather', ['table', 'ids'], ['y'])],
        inputs: indices ? [indices] : [],
        outputs: [value('y', undefined)],
        initializers,
      });
    expect(() => readOnnx(gather(value('ids', [3])), 'g.onnx')).toThrow(/indices ids are float32/);
    expect(() => readOnnx(gather(undefined, [init.external('table', [10, 4]), init.int64('ids', [1, 2])]), 'g.onnx')).toThrow(/indices ids are a constant/);
    const stepped = model({
      opset: 13,
      nodes: [node('Slice', ['x', 's', 'e', 'a', 'st'], ['y'])],
      inputs: [value('x', [8])],
      outputs: [value('y', undefined)],
      initializers: [init.int64('s', [0]), init.int64('e', [8]), init.int64('a', [0]), init.int64('st', [2])],
    });
    expect(() => readOnnx(stepped, 's.onnx')).toThrow(/steps \[2\] are not supported/);
  });
});
