/**
 * Operators split over threads (`npm run bench:threads`): one network run by the CPU
 * executor on one thread and with every operator split over N threads (exec --threads N:
 * the cpu-parallel pool, a scratch band per thread planned), each in a measured process of
 * its own, rounds alternating, with onnxruntime-node timed beside each at the same number of
 * intra-op threads. Both runs' outputs are compared bit for bit with one run of the network
 * unsplit (the naive plan, one thread). The speed-up is taken round by round (one thread
 * over N, run back to back), then the median: the machine's drift between rounds cancels.
 * Target (issue 41): --threads 2 at least 1.6x faster than one thread on Inception v3,
 * outputs equal.
 *
 *   npm run bench:threads -- [--network inception-v3] [--threads 2] [--rounds 3] [--repetitions 10] [--warmup 3]
 *
 * stdout: a table and the verdict; stderr: progress. Exit code 2 on bad arguments.
 */
import { median } from 'simple-statistics';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { cpuParallelBackend } from '../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { execute } from '../src/measuring/execute.ts';
import { naiveReference } from '../src/measuring/isolation/execute-isolated.ts';
import { buildZooModel, ZOO } from '../src/models/zoo.ts';
import { findPlanner } from '../src/planners/registry.ts';
import { availableParallelism } from 'node:os';

const USAGE = 'usage: npm run bench:threads -- [--network inception-v3] [--threads 2] [--rounds 3] [--repetitions 10] [--warmup 3]';
const TARGET = 1.6;

function refuse(message: string): never {
  process.stderr.write(`bench:threads: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const options = { network: 'inception-v3', threads: 2, rounds: 3, repetitions: 10, warmup: 3 };
const args = process.argv.slice(2);
for (let k = 0; k < args.length; k += 2) {
  const [flag, value] = [args[k], args[k + 1]];
  const key = flag?.replace(/^--/, '') as keyof typeof options;
  if (!flag?.startsWith('--') || !(key in options)) refuse(`unknown argument "${flag}".`);
  if (value === undefined) refuse(`${flag} needs a value.`);
  if (key === 'network') {
    options.network = value;
    continue;
  }
  const n = Number(value);
  const least = key === 'warmup' ? 0 : key === 'threads' ? 2 : 1;
  if (!Number.isSafeInteger(n) || n < least) refuse(`${flag} must be a whole number >= ${least}, got ${value}.`);
  options[key] = n;
}
if (!ZOO.some((m) => m.name === options.network)) refuse(`no zoo network is named ${options.network}.`);
if (options.threads > availableParallelism()) refuse(`--threads ${options.threads} is more than this machine's ${availableParallelism()} cores.`);

const graph = buildZooModel(`zoo:${options.network}`);
const planner = findPlanner('offsets/greedy-by-size');
const common = { planner, repetitions: options.repetitions, warmup: options.warmup, seed: 1, peer: true };
process.stderr.write(`bench:threads: ${options.network}, the unsplit reference\n`);
const reference = await naiveReference(graph, { backend: cpuBackend, records: {}, seed: 1 });
const samples = { ours1: [] as number[], oursN: [] as number[], ort1: [] as number[], ortN: [] as number[] };
let equal = true;
for (let round = 1; round <= options.rounds; round++) {
  process.stderr.write(`bench:threads: round ${round} of ${options.rounds}: one thread, then ${options.threads}\n`);
  const one = await execute(graph, { ...common, backend: cpuBackend, records: {}, reference });
  const many = await execute(graph, { ...common, backend: cpuParallelBackend, records: { threads: options.threads }, workers: options.threads, reference });
  equal &&= one.matchesNaive === true && many.matchesNaive === true;
  samples.ours1.push(one.latencyMs.median);
  samples.oursN.push(many.latencyMs.median);
  samples.ort1.push(one.peers?.[0]?.latencyMs.median ?? Number.NaN);
  samples.ortN.push(many.peers?.[0]?.latencyMs.median ?? Number.NaN);
  const [o1, oN, p1, pN] = [samples.ours1, samples.oursN, samples.ort1, samples.ortN].map((values) => values[round - 1]);
  process.stderr.write(
    `bench:threads: round ${round}: ours ${o1.toFixed(1)} ms on one thread, ${oN.toFixed(1)} on ${options.threads} (${(o1 / oN).toFixed(2)}x); onnxruntime-node ${p1.toFixed(1)} and ${pN.toFixed(1)} (${(p1 / pN).toFixed(2)}x)\n`,
  );
}
const [ours1, oursN, ort1, ortN] = [samples.ours1, samples.oursN, samples.ort1, samples.ortN].map((values) => median(values));
const paired = (one: readonly number[], many: readonly number[]): number => median(one.map((ms, k) => ms / many[k]));
const speedup = paired(samples.ours1, samples.oursN);
const peerSpeedup = paired(samples.ort1, samples.ortN);
const N = options.threads;
process.stdout.write(
  [
    `| ${options.network} | 1 thread ms | ${N} threads ms | speed-up |`,
    '|---|---:|---:|---:|',
    `| ours (CPU executor, operators split) | ${ours1.toFixed(1)} | ${oursN.toFixed(1)} | ${speedup.toFixed(2)} |`,
    `| onnxruntime-node (intra-op threads) | ${ort1.toFixed(1)} | ${ortN.toFixed(1)} | ${peerSpeedup.toFixed(2)} |`,
    '',
    `Latencies: medians over ${options.rounds} rounds (each the median of ${options.repetitions} timed inferences after ${options.warmup} warm-up, in a measured process of its own; the rounds alternate one thread and ${N}). Speed-ups: the median over the rounds of each round's one thread over ${N}.`,
    `Outputs of both runs bit-identical to the unsplit network's: ${equal ? 'yes' : 'NO'}.`,
    `--threads ${N} at least ${TARGET}x faster than one thread: ${speedup >= TARGET && equal ? 'met' : 'NOT met'} (${speedup.toFixed(2)}x).`,
    '',
  ].join('\n'),
);
