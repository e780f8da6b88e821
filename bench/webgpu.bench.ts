/**
 * The WGSL kernels by operator class (`npm run bench:webgpu`): one operator of a zoo network's
 * shape as a network of its own, run inside a verified Greedy by Size plan by the WebGPU
 * backend (its device time: timestamp queries where the adapter has them, else submit until
 * done) and by the CPU executor (the operator's span in a traced inference), same weights and
 * inputs. A vec4 Add of four values stands for what a dispatch costs with nothing to compute.
 * Medians of the timed runs after warm-up; WebAssembly compiled by V8's optimizing tier from
 * the start (--no-liftoff), as in the measured processes. The outputs of the two backends
 * against each other: their relative error.
 *
 *   npm run bench:webgpu -- [--quick] [--repetitions 10] [--warmup 3]
 *
 * stdout: the table; stderr: progress. Exit code 2 on bad arguments, 1 where this machine
 * has no WebGPU adapter (scripts/install-vulkan.sh installs a software one: docs/webgpu.md).
 */
import { setFlagsFromString } from 'node:v8';
import { median } from 'simple-statistics';
import type { Backend, PreparedNetwork } from '../src/backends/backend.ts';
import { BackendError } from '../src/backends/backend-error.ts';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { executionRecords } from '../src/backends/execution-records.ts';
import { seededInputs, weightedGraph } from '../src/backends/run-data.ts';
import { webgpuBackend } from '../src/backends/webgpu/webgpu-backend.ts';
import type { Graph } from '../src/graph/ir.ts';
import { plannedProblem } from '../src/graph/lifetimes.ts';
import { relativeError } from '../src/measuring/peer-session.ts';
import { NetworkBuilder } from '../src/models/builder.ts';
import { planAndVerify } from '../src/planners/plan-and-verify.ts';
import { findPlanner } from '../src/planners/registry.ts';
import { kernelRunOptions } from './kernel-run-options.ts';

setFlagsFromString('--no-liftoff');

const options = kernelRunOptions('bench:webgpu', process.argv.slice(2));

/** One operator on an NHWC input: what it is, its input shape, and how the builder makes it. */
interface OperatorCase {
  readonly label: string;
  readonly input: readonly [number, number, number, number];
  /** Multiply-adds times two (convolutions); undefined for the memory-bound operators. */
  readonly flop?: number;
  readonly build: (b: NetworkBuilder, x: string) => string;
}

const conv = (h: number, w: number, c: number, o: number, kernel: number, stride: number): number => 2 * Math.ceil(h / stride) * Math.ceil(w / stride) * kernel * kernel * c * o;

const CASES: readonly OperatorCase[] = [
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

function network(item: OperatorCase): Graph {
  const b = new NetworkBuilder('one-operator', 'float32');
  const x = b.input('x', item.input);
  return weightedGraph(b.build([item.build(b, x)]), 'seeded', 1);
}

interface Timed {
  readonly ms: number;
  readonly outputs: Map<string, Float32Array>;
}

/** The network on a backend inside a verified Greedy by Size plan: the median of `sample` over the timed runs, and the outputs. */
async function timedOn(backend: Backend, graph: Graph, alignment: number, sample: (prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>) => Promise<number>): Promise<Timed> {
  const { graph: planned, problem } = plannedProblem(graph, executionRecords(backend));
  const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment });
  const prepared = await backend.prepare({ graph: planned, problem, plan });
  try {
    const inputs = seededInputs(graph, 1);
    for (let k = 0; k < options.warmup; k++) await sample(prepared, inputs);
    const samples: number[] = [];
    for (let k = 0; k < options.repetitions; k++) samples.push(await sample(prepared, inputs));
    const outputs = new Map([...(await prepared.infer(inputs))].map(([name, values]) => [name, values.slice()]));
    return { ms: median(samples), outputs };
  } finally {
    prepared.dispose();
  }
}

/** The device's own time for one inference (the backend's one compute pass). */
async function deviceMs(prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>): Promise<number> {
  await prepared.infer(inputs);
  if (prepared.lastDeviceMs === undefined) throw new BackendError('the WebGPU backend gave no device time for an inference.');
  return prepared.lastDeviceMs;
}

/** The CPU executor's time for the operators of one traced inference (without the copies of inputs and outputs). */
async function operatorMs(prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>): Promise<number> {
  const spans = await prepared.trace!(inputs);
  return spans.reduce((sum, span) => sum + (span.end - span.start), 0);
}

let adapter: string;
let timing: string;
try {
  const info = await webgpuBackend.device();
  adapter = `${info.description}${info.fallbackAdapter ? ' (a software adapter: the CPU runs every dispatch)' : ''}`;
  timing = info.timing === 'timestamp-query' ? 'timestamp queries around the compute pass' : 'submit until the queue is done (no timestamp queries here)';
} catch (error) {
  if (!(error instanceof BackendError)) throw error;
  process.stderr.write(`bench:webgpu: this machine has no WebGPU adapter (${error.message}); scripts/install-vulkan.sh installs a software one (docs/webgpu.md).\n`);
  process.exit(1);
}
const alignment = await webgpuBackend.requiredAlignment();

const cases = options.quick ? CASES.slice(0, 2) : CASES;
const lines = ['| operator | input | GFLOP | WebGPU device ms | WebGPU GFLOP/s | CPU executor ms | CPU GFLOP/s | WebGPU / CPU | relative error |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
for (const item of cases) {
  process.stderr.write(`bench:webgpu: ${item.label}\n`);
  const graph = network(item);
  let gpu: Timed;
  let cpu: Timed;
  try {
    gpu = await timedOn(webgpuBackend, graph, alignment, deviceMs);
    cpu = await timedOn(cpuBackend, graph, 64, operatorMs);
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    process.stderr.write(`bench:webgpu: ${item.label}: ${error.message}\n`);
    process.exit(1);
  }
  const gflop = item.flop === undefined ? undefined : item.flop / 1e9;
  const rate = (ms: number): string => (gflop === undefined ? '' : (gflop / (ms / 1e3)).toFixed(1));
  lines.push(
    `| ${item.label} | ${item.input.slice(1).join('x')} | ${gflop?.toFixed(4) ?? ''} | ${gpu.ms.toFixed(3)} | ${rate(gpu.ms)} | ${cpu.ms.toFixed(3)} | ${rate(cpu.ms)} | ${(gpu.ms / cpu.ms).toFixed(1)} | ${relativeError(gpu.outputs, cpu.outputs).toExponential(1)} |`,
  );
}
lines.push(
  '',
  `Adapter: ${adapter}; device time by ${timing}. Medians of ${options.repetitions} timed inferences after ${options.warmup} warm-up runs, each operator a network of its own inside a verified Greedy by Size plan on each backend; the CPU executor on one thread, its operator's span in a traced inference. Relative error: the WebGPU outputs against the CPU executor's.`,
);
process.stdout.write(`${lines.join('\n')}\n`);
// Dawn's device keeps the event loop alive.
process.exit(0);
