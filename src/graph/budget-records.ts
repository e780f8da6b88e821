import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { executionOrder } from './execution-order.ts';
import { GraphError, type Graph } from './ir.ts';
import { layerMemory, type LayerMemory } from './layer-memory.ts';
import { graphToProblem, plannedGraph, plannedGraphOptions, type RecordOptions } from './lifetimes.ts';
import { sliceWeights } from './weight-slicing.ts';

/**
 * Weights are sliced so that one slice takes at most this share of the budget: FlexNN's
 * evaluation scripts slice fully connected layers to a fifth of the budget (`fc_sz` =
 * budget / 5 at every budget of ResNet-152 and MobileNet v2), which leaves room to
 * preload the next slices while one computes.
 */
export const WEIGHT_SLICE_SHARE = 5;

export interface BudgetRecordOptions extends RecordOptions {
  /** Bytes; weights are sliced to a fifth of it. Absent: no weight slicing (the on-demand baseline). */
  readonly budget?: number;
}

/** The records of one layer beside its activations (indices into the problem's records). */
export interface LayerRecords {
  readonly step: number;
  readonly memory: LayerMemory;
  readonly weight?: number;
  readonly scratch?: number;
}

/** A network as it runs under a budget: the graph that runs and the records it is planned with. */
export interface BudgetedNetwork {
  /** The planned graph (record options' transforms and order), weight-sliced for the budget. */
  readonly graph: Graph;
  /**
   * Every record of a budgeted run, in order of first use: the activations (graph inputs
   * and outputs included: they live in the one buffer too), one weight record per layer
   * with weights (`<node>@weights`, loadable from operator 0 on) and one scratch
   * record per layer with scratch (`<node>@scratch`); sizes in fp32, the budget attached.
   */
  readonly problem: Problem;
  /** Per node name. */
  readonly layers: ReadonlyMap<string, LayerRecords>;
}

/**
 * The records of a graph under a budget (FlexNN's layer memory: activations, weights,
 * intermediates). Activations come as graphToProblem gives them, at 4 bytes per element
 * (the executor runs fp32) with the graph's inputs and outputs kept; weights and scratch
 * in the executor's form (layer-memory.ts).
 */
export function budgetedNetwork(source: Graph, options: BudgetRecordOptions = {}): BudgetedNetwork {
  const { budget, ...recordOptions } = options;
  // One operator at a time: the loader and the compute thread follow one layer order. NHWC:
  // the layout its kernels run in place (an ONNX file's network is laid out so, to-nhwc.ts).
  const selection: RecordOptions = { ...recordOptions, elementSize: 4, includeGraphIO: true, roundChannelsTo4: false, schedule: 'sequential', nhwc: true };
  const planned = plannedGraph(source, selection);
  const graph = budget === undefined ? planned : sliceWeights(planned, Math.floor(budget / WEIGHT_SLICE_SHARE));
  const activations = graphToProblem(graph, plannedGraphOptions(selection));
  const ids = new Set(activations.records.map((r) => r.id));
  const added: TensorUsageRecord[] = [];
  const pending = new Map<string, { step: number; memory: LayerMemory; weight?: string; scratch?: string }>();
  executionOrder(graph).forEach((node, step) => {
    const memory = layerMemory(graph, node);
    const layer: { step: number; memory: LayerMemory; weight?: string; scratch?: string } = { step, memory };
    const add = (id: string, size: number, kind: 'weight' | 'scratch'): string => {
      if (ids.has(id)) throw new GraphError(`the budgeted records need the id ${id}, which a tensor of the graph already has.`);
      ids.add(id);
      added.push(kind === 'weight' ? { id, size, first: step, last: step, kind, earliest: 0 } : { id, size, first: step, last: step, kind });
      return id;
    };
    if (memory.weightBytes > 0) layer.weight = add(`${node.name}@weights`, memory.weightBytes, 'weight');
    if (memory.scratchBytes > 0) layer.scratch = add(`${node.name}@scratch`, memory.scratchBytes, 'scratch');
    pending.set(node.name, layer);
  });
  // Stable by first use: a layer's weight and scratch after the activations it starts.
  const records = [...activations.records, ...added].sort((a, b) => a.first - b.first);
  const index = new Map(records.map((r, i) => [r.id, i]));
  const layers = new Map<string, LayerRecords>();
  for (const [name, layer] of pending) {
    layers.set(name, {
      step: layer.step,
      memory: layer.memory,
      ...(layer.weight !== undefined ? { weight: index.get(layer.weight) as number } : {}),
      ...(layer.scratch !== undefined ? { scratch: index.get(layer.scratch) as number } : {}),
    });
  }
  const problem = makeProblem(activations.name, records, activations.operatorCount, budget === undefined ? {} : { budget });
  return { graph, problem, layers };
}
