import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { bitIdentical, seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { elementCount, type Graph, type Tensor } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel, PAPER_ZOO, TRANSFORMER_ZOO, ZOO } from '../../src/models/zoo.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

/**
 * The 5x5 branch of GoogLeNet as the paper has it, where torchvision has a 3x3:
 * (5*5 - 3*3) weights per (#5x5 reduce x #5x5) of Table 1 of Szegedy et al. 2015.
 */
const GOOGLENET_5X5_REDUCE_AND_5X5 = [
  [16, 32],
  [32, 96],
  [16, 48],
  [24, 64],
  [24, 64],
  [32, 64],
  [32, 128],
  [32, 128],
  [48, 128],
] as const;
const GOOGLENET_5X5_EXTRA = GOOGLENET_5X5_REDUCE_AND_5X5.reduce((sum, [reduce, out]) => sum + (25 - 9) * reduce * out, 0);

/**
 * Published parameter counts. torchvision's and Keras' counts include batch norm (2 trainable
 * values per channel; Keras also counts the 2 running statistics), which folding turns into
 * one bias per channel: that, and the zero bias TFLite gives a separable convolution's
 * depthwise half, keep ours within 1%.
 */
const PUBLISHED: Record<string, { readonly parameters: number; readonly source: string }> = {
  'vgg-19': { parameters: 143_667_240, source: 'torchvision vgg19 (Keras VGG19: the same)' },
  'resnet-152': { parameters: 60_192_808, source: 'torchvision resnet152' },
  'squeezenet-1.1': { parameters: 1_235_496, source: 'torchvision squeezenet1_1' },
  'resnext-50-paths': { parameters: 25_028_904, source: 'torchvision resnext50_32x4d' },
  'resnext-50-grouped': { parameters: 25_028_904, source: 'torchvision resnext50_32x4d' },
  googlenet: { parameters: 6_624_904 + GOOGLENET_5X5_EXTRA, source: "torchvision googlenet (no aux) with the paper's 5x5 branch" },
  xception: { parameters: 22_910_480, source: 'Keras applications Xception' },
};

/** Reduced inputs for running on the CPU backend. */
const SMALL: Record<string, number> = {
  'vgg-19': 32,
  'resnet-152': 32,
  'squeezenet-1.1': 64,
  'resnext-50-paths': 32,
  'resnext-50-grouped': 32,
  googlenet: 64,
  xception: 64,
};

const NEW = Object.keys(PUBLISHED);

function parameterCount(graph: Graph): number {
  let total = 0;
  for (const tensor of graph.tensors.values()) if (tensor.constant) total += elementCount(tensor.shape);
  return total;
}

/** The graph with the softmax's input (the logits) handed back too, so outputs compare before saturation. */
function withLogits(graph: Graph): Graph {
  const logits = graph.nodes[graph.nodes.length - 1].inputs[0];
  return { ...graph, outputs: [...graph.outputs, logits] };
}

async function run(graph: Graph, planner: string): Promise<Map<string, Float32Array>> {
  const problem = graphToProblem(graph, { elementSize: 4, scratch: true });
  const plan = planAndVerify(findPlanner(planner), problem, { alignment: 4 });
  expect(plan.valid).toBe(true);
  const prepared = await cpuBackend.prepare({ graph, problem, plan });
  return new Map(await prepared.infer(seededInputs(graph, 1)));
}

describe('the ImageNet networks beyond the paper', () => {
  it('are in the zoo after the six of the paper, which stay PAPER_ZOO', () => {
    expect(ZOO.slice(0, 6)).toEqual(PAPER_ZOO);
    expect(PAPER_ZOO.map((m) => m.name)).toEqual(['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface']);
    expect(ZOO.slice(6, 6 + NEW.length).map((m) => m.name)).toEqual(NEW);
    // The transformers come last (test/models/vit.test.ts, gpt-2.test.ts).
    expect(ZOO.slice(6 + NEW.length)).toEqual(TRANSFORMER_ZOO);
    for (const model of ZOO.slice(6, 6 + NEW.length)) {
      expect(model.defaults).toEqual({ inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' });
      expect(model.tunable).toEqual(expect.arrayContaining(['inputSize', 'batch', 'dtype']));
      expect(model.reference.length).toBeGreaterThan(0);
    }
  });

  it.each(NEW)('%s builds in topological order, has the published parameter count and plans validly', (name) => {
    const graph = buildZooModel(`zoo:${name}`);
    expect(executionOrder(graph)).toBe(graph.nodes);
    expect(graph.tensors.get(graph.inputs[0])?.shape).toEqual([1, 224, 224, 3]);
    expect(graph.outputs.map((o) => graph.tensors.get(o)?.shape)).toEqual([[1, 1000]]);
    const { parameters, source } = PUBLISHED[name];
    expect(Math.abs(parameterCount(graph) / parameters - 1), `${name} vs ${source}`).toBeLessThan(0.01);
    const problem = graphToProblem(graph, { elementSize: 4 });
    expect(problem.records.length).toBeGreaterThan(0);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), problem).valid).toBe(true);
  });

  it.each(NEW)('%s computes bit-identical outputs inside the Greedy by Size plan and the naive one (CPU, reduced input)', async (name) => {
    const graph = withLogits(weightedGraph(buildZooModel(`zoo:${name}?input=${SMALL[name]}`), 'seeded', 1));
    const planned = await run(graph, 'offsets/greedy-by-size');
    const naive = await run(graph, 'shared-objects/naive');
    expect(bitIdentical(planned, naive)).toBe(true);
    const logits = planned.get(graph.outputs[1])!;
    expect(logits.every(Number.isFinite)).toBe(true);
    expect(new Set(logits).size).toBeGreaterThan(1);
  });

  describe('ResNeXt-50 32x4d in its two forms', () => {
    const grouped = buildZooModel('zoo:resnext-50-grouped');
    const paths = buildZooModel('zoo:resnext-50-paths');
    const convs = (graph: Graph, kernel: number) => graph.nodes.filter((n) => n.op === 'Conv' && n.kernel[0] === kernel && n.kernel[1] === kernel);

    it('has the same parameters in both', () => {
      expect(parameterCount(paths)).toBe(parameterCount(grouped));
    });

    it('has 32 paths (3x3 convolutions, then a Concat) per grouped 3x3 convolution', () => {
      const grouped3x3 = convs(grouped, 3);
      expect(grouped3x3).toHaveLength(16);
      expect(grouped3x3.every((n) => n.op === 'Conv' && n.groups === 32)).toBe(true);
      expect(convs(paths, 3)).toHaveLength(32 * grouped3x3.length);
      expect(convs(paths, 3).every((n) => n.op === 'Conv' && n.groups === 1)).toBe(true);
      expect(paths.nodes.filter((n) => n.op === 'Concat')).toHaveLength(grouped3x3.length);
      expect(grouped.nodes.filter((n) => n.op === 'Concat')).toHaveLength(0);
    });

    it('computes the same function when path g takes rows g*d.. of the grouped weights (CPU, 32x32)', async () => {
      const from = withLogits(weightedGraph(buildZooModel('zoo:resnext-50-grouped?input=32'), 'seeded', 2));
      const bare = buildZooModel('zoo:resnext-50-paths?input=32');
      const tensors = new Map<string, Tensor>();
      for (const [name, tensor] of bare.tensors) {
        if (!tensor.constant) {
          tensors.set(name, tensor);
          continue;
        }
        const path = /^(.*)\/path(\d+)\/(conv[12]\/(weights|bias))$/.exec(name);
        const source = from.tensors.get(path ? `${path[1]}/${path[3]}` : name)!.data as Float32Array;
        const length = elementCount(tensor.shape);
        const start = path ? Number(path[2]) * length : 0;
        expect(source.length).toBe(path ? 32 * length : length);
        tensors.set(name, { ...tensor, dtype: 'float32', data: source.slice(start, start + length) });
      }
      const to = withLogits({ ...bare, tensors });
      const a = [...(await run(from, 'offsets/greedy-by-size')).values()];
      const b = [...(await run(to, 'offsets/greedy-by-size')).values()];
      expect(b.map((v) => v.length)).toEqual(a.map((v) => v.length));
      for (let k = 0; k < a.length; k++) {
        const scale = Math.max(...a[k].map(Math.abs));
        expect(scale).toBeGreaterThan(0);
        expect(Math.max(...a[k].map((v, i) => Math.abs(v - b[k][i]))) / scale).toBeLessThan(1e-5);
      }
    });
  });

  it('Xception: every explicit Relu reads an Add that also feeds a shortcut (it could not be fused)', () => {
    const graph = buildZooModel('zoo:xception');
    const relus = graph.nodes.filter((n) => n.op === 'Relu');
    expect(relus.length).toBeGreaterThan(0);
    for (const relu of relus) {
      const producer = graph.nodes.find((n) => n.outputs.includes(relu.inputs[0]));
      expect(producer?.op).toBe('Add');
      expect(graph.nodes.filter((n) => n.inputs.includes(relu.inputs[0])).length).toBeGreaterThan(1);
    }
  });
});
