/**
 * The CPU executor's kernels by operator class against onnxruntime-node on the same shapes
 * (`npm run bench:operators`): one operator of a zoo network's shape as a network of its own
 * (bench/operator-cases.ts), run by the CPU executor inside a verified Greedy by Size plan and
 * by onnxruntime-node (a session of the same one-operator ONNX file, one intra-op thread, all
 * graph optimizations), same weights and inputs. Like for like, each side's whole run: our
 * inference (inputs copied in, outputs out) against onnxruntime's session.run (inputs and
 * outputs included); beside it our operator alone (its span in a traced inference), and a
 * vec4 Add of four values shows what a run costs with nothing to compute. Medians of the timed runs after warm-up; WebAssembly compiled by V8's
 * optimizing tier from the start (--no-liftoff), as in the measured processes. The outputs
 * against onnxruntime's: their relative error.
 *
 *   npm run bench:operators -- [--quick] [--repetitions 10] [--warmup 3]
 *
 * stdout: the table; stderr: progress. Exit code 2 on bad arguments.
 */
import { setFlagsFromString } from 'node:v8';
import { median } from 'simple-statistics';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { seededInputs } from '../src/backends/run-data.ts';
import { kernelRunOptions } from './kernel-run-options.ts';
import { flopCells, inferMs, OPERATOR_CASES, operatorMs, operatorNetwork, timedOn } from './operator-cases.ts';

setFlagsFromString('--no-liftoff');

const options = kernelRunOptions('bench:operators', process.argv.slice(2));

// Loaded once the arguments are good: a refusal answers without loading onnxruntime.
const { peerJob, relativeError } = await import('../src/measuring/peer-session.ts');
const { runOnnxRuntime } = await import('../src/measuring/onnxruntime-peer.ts');

const cases = options.quick ? OPERATOR_CASES.slice(0, 2) : OPERATOR_CASES;
const lines = [
  '| operator | input | GFLOP | ours, operator ms | ours GFLOP/s | ours, run ms | onnxruntime-node, run ms | onnxruntime GFLOP/s | ours / onnxruntime, runs | relative error |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
];
let runtime = 'onnxruntime-node';
for (const item of cases) {
  process.stderr.write(`bench:operators: ${item.label}\n`);
  const graph = operatorNetwork(item);
  const ours = await timedOn(cpuBackend, graph, 64, operatorMs, options);
  const oursRun = await timedOn(cpuBackend, graph, 64, inferMs, options);
  const peer = await runOnnxRuntime(await peerJob(graph, seededInputs(graph, 1)), options);
  runtime = peer.runtime;
  const peerMs = median([...peer.samples]);
  const { gflop, rate } = flopCells(item);
  lines.push(
    `| ${item.label} | ${item.input.slice(1).join('x')} | ${gflop} | ${ours.ms.toFixed(3)} | ${rate(ours.ms)} | ${oursRun.ms.toFixed(3)} | ${peerMs.toFixed(3)} | ${rate(peerMs)} | ${(oursRun.ms / peerMs).toFixed(2)} | ${relativeError(ours.outputs, peer.outputs).toExponential(1)} |`,
  );
}
lines.push(
  '',
  `One thread; medians of ${options.repetitions} timed runs after ${options.warmup} warm-up runs, each operator a network of its own: ours, operator: its span in a traced inference of the CPU executor; ours, run: an inference (inputs copied in, outputs out); ${runtime}: its session.run (inputs and outputs included). GFLOP/s from the operator's span for ours, from the run for onnxruntime. Relative error: our outputs against onnxruntime's.`,
);
process.stdout.write(`${lines.join('\n')}\n`);
