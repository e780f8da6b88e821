/**
 * One operator of each class the executors run, on a zoo network's shape, each as a network of
 * its own (bench:operators against onnxruntime, bench:webgpu against the CPU executor). A vec4
 * Add of four values stands for what running an operator costs with nothing to compute.
 */
import { median } from 'simple-statistics';
import type { Backend, PreparedNetwork } from '../src/backends/backend.ts';
import { executionRecords } from '../src/backends/execution-records.ts';
import { seededInputs, weightedGraph } from '../src/backends/run-data.ts';
import { plannedProblem } from '../src/graph/lifetimes.ts';
import { planAndVerify } from '../src/planners/plan-and-verify.ts';
import { findPlanner } from '../src/planners/registry.ts';
import type { Graph } from '../src/graph/ir.ts';
import { NetworkBuilder } from '../src/models/builder.ts';

/** One operator on an NHWC input: what it is, its input shape, and how the builder makes it. */
export interface OperatorCase {
  readonly label: string;
  readonly input: readonly [number, number, number, number];
  /** Multiply-adds times two (convolutions); undefined for the memory-bound operators. */
  readonly flop?: number;
  readonly build: (b: NetworkBuilder, x: string) => string;
}

const conv = (h: number, w: number, c: number, o: number, kernel: number, stride: number): number => 2 * Math.ceil(h / stride) * Math.ceil(w / stride) * kernel * kernel * c * o;

export const OPERATOR_CASES: readonly OperatorCase[] = [
  { label: 'BlazeFace 1x1 convolution', input: [1, 64, 64, 24], flop: conv(64, 64, 24, 28, 1, 1), build: (b, x) => b.conv('conv', x, { out: 28, kernel: 1, padding: 'valid', activation: 'relu' }) },
  { label: 'BlazeFace 3x3 depthwise', input: [1, 64, 64, 24], flop: conv(64, 64, 1, 24, 3, 1), build: (b, x) => b.depthwise('depthwise', x, { kernel: 3 }) },
  {
    label: 'BlazeFace first 5x5 /2 convolution',
    input: [1, 128, 128, 3],
    flop: conv(128, 128, 3, 24, 5, 2),
    build: (b, x) => b.conv('conv', x, { out: 24, kernel: 5, stride: 2, activation: 'relu' }),
  },
  {
    label: 'MobileNet v2 1x1 expansion',
    input: [1, 56, 56, 24],
    flop: conv(56, 56, 24, 144, 1, 1),
    build: (b, x) => b.conv('conv', x, { out: 144, kernel: 1, padding: 'valid', activation: 'relu6' }),
  },
  { label: 'SqueezeNet fire2/expand3x3', input: [1, 55, 55, 16], flop: conv(55, 55, 16, 64, 3, 1), build: (b, x) => b.conv('conv', x, { out: 64, kernel: 3, activation: 'relu' }) },
  { label: 'BlazeFace residual Add + ReLU', input: [1, 64, 64, 28], build: (b, x) => b.add('add', x, b.input('skip', [1, 64, 64, 28]), 'relu') },
  {
    label: 'BlazeFace channel Pad 24 -> 28',
    input: [1, 64, 64, 24],
    build: (b, x) =>
      b.pad('pad', x, [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 4],
      ]),
  },
  { label: 'BlazeFace 2x2 /2 MaxPool', input: [1, 64, 64, 28], build: (b, x) => b.pool('pool', 'MaxPool', x, 2, 2, 'same') },
  { label: 'a vec4 Add of 4 values (a dispatch, nothing to compute)', input: [1, 1, 1, 4], build: (b, x) => b.add('add', x, x) },
];

/** An operator's table cells beside its times: its GFLOP, and its rate at a time in ms (both blank for the memory-bound ones). */
export function flopCells(item: OperatorCase): { readonly gflop: string; readonly rate: (ms: number) => string } {
  const gflop = item.flop === undefined ? undefined : item.flop / 1e9;
  return { gflop: gflop?.toFixed(4) ?? '', rate: (ms) => (gflop === undefined ? '' : (gflop / (ms / 1e3)).toFixed(1)) };
}

/** The operator as a network of its own, with seeded weights. */
export function operatorNetwork(item: OperatorCase): Graph {
  const b = new NetworkBuilder('one-operator', 'float32');
  const x = b.input('x', item.input);
  return weightedGraph(b.build([item.build(b, x)]), 'seeded', 1);
}

export interface Timed {
  readonly ms: number;
  readonly outputs: Map<string, Float32Array>;
}

/** The network on a backend inside a verified Greedy by Size plan: the median of `sample` over the timed runs, and the outputs. */
export async function timedOn(
  backend: Backend,
  graph: Graph,
  alignment: number,
  sample: (prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>) => Promise<number>,
  runs: { readonly warmup: number; readonly repetitions: number },
): Promise<Timed> {
  const { graph: planned, problem } = plannedProblem(graph, executionRecords(backend));
  const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment });
  const prepared = await backend.prepare({ graph: planned, problem, plan });
  try {
    const inputs = seededInputs(graph, 1);
    for (let k = 0; k < runs.warmup; k++) await sample(prepared, inputs);
    const samples: number[] = [];
    for (let k = 0; k < runs.repetitions; k++) samples.push(await sample(prepared, inputs));
    const outputs = new Map([...(await prepared.infer(inputs))].map(([name, values]) => [name, values.slice()]));
    return { ms: median(samples), outputs };
  } finally {
    prepared.dispose();
  }
}

/** The CPU executor's time for the operators of one traced inference (without the copies of inputs and outputs). */
export async function operatorMs(prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>): Promise<number> {
  const spans = await prepared.trace!(inputs);
  return spans.reduce((sum, span) => sum + (span.end - span.start), 0);
}

/** The wall time of one inference: inputs copied in, the network, outputs copied out. */
export async function inferMs(prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>): Promise<number> {
  const started = performance.now();
  await prepared.infer(inputs);
  return performance.now() - started;
}
