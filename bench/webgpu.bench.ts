/**
 * The WGSL kernels by operator class (`npm run bench:webgpu`): one operator of a zoo network's
 * shape as a network of its own, run inside a verified Greedy by Size plan by the WebGPU
 * backend (its device time: timestamp queries where the adapter has them, else submit until
 * done) and by the CPU executor (the operator's span in a traced inference), same weights and
 * inputs (bench/operator-cases.ts), a vec4 Add of four values for a dispatch with nothing to compute.
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
import type { PreparedNetwork } from '../src/backends/backend.ts';
import { BackendError } from '../src/backends/backend-error.ts';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { webgpuBackend } from '../src/backends/webgpu/webgpu-backend.ts';
import { relativeError } from '../src/measuring/peer-session.ts';
import { kernelRunOptions } from './kernel-run-options.ts';
import { flopCells, OPERATOR_CASES, operatorMs, operatorNetwork, type Timed, timedOn } from './operator-cases.ts';

setFlagsFromString('--no-liftoff');

const options = kernelRunOptions('bench:webgpu', process.argv.slice(2));

/** The device's own time for one inference (the backend's one compute pass). */
async function deviceMs(prepared: PreparedNetwork, inputs: ReadonlyMap<string, Float32Array>): Promise<number> {
  await prepared.infer(inputs);
  if (prepared.lastDeviceMs === undefined) throw new BackendError('the WebGPU backend gave no device time for an inference.');
  return prepared.lastDeviceMs;
}

let adapter: string;
let timing: string;
try {
  const info = await webgpuBackend.device();
  adapter = `${info.description}${info.fallbackAdapter ? ' (a software adapter: the CPU runs every dispatch)' : ''}`;
  timing = info.timing === 'timestamp-query' ? 'timestamp queries around the compute pass' : 'submit until the queue is done (no timestamp queries here)';
} catch (error) {
  if (!(error instanceof BackendError)) throw error;
  // The backend's sentence says which drivers it tried and how to install one.
  process.stderr.write(`bench:webgpu: ${error.message}\n`);
  process.exit(1);
}
const alignment = await webgpuBackend.requiredAlignment();

const cases = options.quick ? OPERATOR_CASES.slice(0, 2) : OPERATOR_CASES;
const lines = ['| operator | input | GFLOP | WebGPU device ms | WebGPU GFLOP/s | CPU executor ms | CPU GFLOP/s | WebGPU / CPU | relative error |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
for (const item of cases) {
  process.stderr.write(`bench:webgpu: ${item.label}\n`);
  const graph = operatorNetwork(item);
  let gpu: Timed;
  let cpu: Timed;
  try {
    gpu = await timedOn(webgpuBackend, graph, alignment, deviceMs, options);
    cpu = await timedOn(cpuBackend, graph, 64, operatorMs, options);
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    process.stderr.write(`bench:webgpu: ${item.label}: ${error.message}\n`);
    process.exit(1);
  }
  const { gflop, rate } = flopCells(item);
  lines.push(
    `| ${item.label} | ${item.input.slice(1).join('x')} | ${gflop} | ${gpu.ms.toFixed(3)} | ${rate(gpu.ms)} | ${cpu.ms.toFixed(3)} | ${rate(cpu.ms)} | ${(gpu.ms / cpu.ms).toFixed(1)} | ${relativeError(gpu.outputs, cpu.outputs).toExponential(1)} |`,
  );
}
lines.push(
  '',
  `Adapter: ${adapter}; device time by ${timing}. Medians of ${options.repetitions} timed inferences after ${options.warmup} warm-up runs, each operator a network of its own inside a verified Greedy by Size plan on each backend; the CPU executor on one thread, its operator's span in a traced inference. Relative error: the WebGPU outputs against the CPU executor's.`,
);
process.stdout.write(`${lines.join('\n')}\n`);
// Dawn's device keeps the event loop alive.
process.exit(0);
