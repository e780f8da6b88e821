/**
 * The CPU executor against onnxruntime on the zoo's networks (`npm run bench:executor`):
 * per network, one measured run of offsets/greedy-by-size in a process of its own (its
 * latency and its memory, accounted for: report/memory-table.ts `accounted`), and on the
 * same network, weights and inputs, after the same warm-up, one thread each:
 * onnxruntime-node (native, in this process) and onnxruntime-web's WebAssembly build (in a
 * process of its own, --no-liftoff, as ours). Ratios are measured in one run; compare builds on one
 * machine, and run it on a quiet one.
 *
 *   npm run bench:executor -- [--network NAME-SUBSTRING]... [--repetitions N] [--warmup N] [--runs N] [--onnx]
 *
 * --onnx runs each network from an ONNX file, as a user's own file runs: the zoo network
 * exported (`memplan export`'s writer, seeded weights in the file), read back (NCHW) and run
 * with the file's weights, which the CPU executor lays out NHWC (graph/to-nhwc.ts).
 *
 * --runs N (default 1) measures each network N times, each time in a fresh process and with
 * onnxruntime timed again beside it: processes of one build differ (one measured ResNet-152
 * ratio moved from 3.5 to 4.4 between runs), so comparing two builds needs several per side.
 * The table then gives the median ratio and its min-max over the runs; memory is the first run's.
 *
 * stdout: a table; stderr: progress. bench/out/executor.csv: every row. Exit code 2 on bad
 * arguments.
 */
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { geometricMean, median } from 'simple-statistics';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { BENCH_OUT } from './bench-out.ts';

const OUT_CSV = join(BENCH_OUT, 'executor.csv');
const USAGE = 'usage: npm run bench:executor -- [--network NAME-SUBSTRING]... [--repetitions N] [--warmup N] [--runs N] [--onnx]';
const MIB = 2 ** 20;

function refuse(message: string): never {
  process.stderr.write(`bench:executor: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parse(args: readonly string[]): { networks: string[]; repetitions: number; warmup: number; runs: number; onnx: boolean } {
  const networks: string[] = [];
  const counts = { '--repetitions': 10, '--warmup': 5, '--runs': 1 };
  const onnx = args.includes('--onnx');
  const pairs = args.filter((arg) => arg !== '--onnx');
  for (let k = 0; k < pairs.length; k += 2) {
    const [flag, value] = [pairs[k], pairs[k + 1]];
    if (flag !== '--network' && !(flag in counts)) refuse(`unknown argument "${flag}".`);
    if (value === undefined) refuse(`${flag} needs a value.`);
    if (flag === '--network') {
      networks.push(value);
      continue;
    }
    const least = flag === '--warmup' ? 0 : 1;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < least) refuse(`${flag} must be a whole number >= ${least}, got ${value}.`);
    counts[flag as keyof typeof counts] = n;
  }
  return { networks, repetitions: counts['--repetitions'], warmup: counts['--warmup'], runs: counts['--runs'], onnx };
}

const options = parse(process.argv.slice(2));
// The rest loads once the arguments are good: a refusal answers at once (1.8 s of CPU to 0.7).
const { buildZooModel, ZOO } = await import('../src/models/zoo.ts');
const chosen = ZOO.filter((m) => options.networks.length === 0 || options.networks.some((s) => m.name.includes(s)));
if (chosen.length === 0) refuse(`no zoo network matches ${options.networks.join(', ')}.`);

const [{ cpuBackend }, { execute }, { findPlanner }, { accounted }, { readOnnx }, { writeOnnx }] = await Promise.all([
  import('../src/backends/cpu/cpu-backend.ts'),
  import('../src/measuring/execute.ts'),
  import('../src/planners/registry.ts'),
  import('../src/report/memory-table.ts'),
  import('../src/io/onnx/read-onnx.ts'),
  import('../src/io/onnx/write-onnx.ts'),
]);
/** The network as run: the zoo's (NHWC, seeded weights), or read from the ONNX file it exports to (NCHW, the file's weights). */
const source = (name: string) => {
  const graph = buildZooModel(`zoo:${name}`);
  return options.onnx ? readOnnx(writeOnnx(graph, { weights: 'random', seed: 1 }), `${name}.onnx`) : graph;
};
const planner = findPlanner('offsets/greedy-by-size');
const rows: (string | number)[][] = [];
const ratios: number[] = [];
const webRatios: number[] = [];
// Issue 41's targets: the fastest WebAssembly executor by 1.5x, and within 4x of native onnxruntime.
const WEB_TARGET = 0.67;
const NATIVE_TARGET = 4.0;
process.stdout.write(
  '| network | ours ms | onnxruntime-node ms | ours / node | min–max over runs | onnxruntime-web ms | ours / web | planned + weights + io MiB | peak − baseline MiB | rest MiB | runtime MiB | explained |\n|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n',
);
for (const model of chosen) {
  const reports = [];
  for (let run = 1; run <= options.runs; run++) {
    process.stderr.write(`bench:executor: ${model.name}${options.runs > 1 ? ` (run ${run} of ${options.runs})` : ''}\n`);
    reports.push(
      await execute(source(model.name), {
        backend: cpuBackend,
        planner,
        weights: options.onnx ? 'file' : 'seeded',
        repetitions: options.repetitions,
        warmup: options.warmup,
        seed: 1,
        peer: true,
        webPeer: true,
        verifyByExecution: false,
      }),
    );
  }
  // peers[0] is onnxruntime-node, peers[1] onnxruntime-web (execute-isolated.ts).
  const runRatios = reports.map((r) => r.peers![0].ratio);
  const ratio = median(runRatios);
  const webRatio = median(reports.map((r) => r.peers![1].ratio));
  const m = reports[0].memory;
  const held = m.planned + m.weights + m.io;
  ratios.push(ratio);
  webRatios.push(webRatio);
  const ours = median(reports.map((r) => r.latencyMs.median));
  const theirs = median(reports.map((r) => r.peers![0].latencyMs.median));
  const web = median(reports.map((r) => r.peers![1].latencyMs.median));
  const spread = `${Math.min(...runRatios).toFixed(2)}–${Math.max(...runRatios).toFixed(2)}`;
  rows.push([
    model.name,
    ours,
    theirs,
    ratio,
    Math.min(...runRatios),
    Math.max(...runRatios),
    options.runs,
    web,
    webRatio,
    held / MIB,
    m.peakRssDelta / MIB,
    m.rest / MIB,
    (m.runtime ?? NaN) / MIB,
    String(accounted(m)),
  ]);
  process.stdout.write(
    `| ${model.name} | ${ours.toFixed(1)} | ${theirs.toFixed(1)} | ${ratio.toFixed(2)} | ${spread} | ${web.toFixed(1)} | ${webRatio.toFixed(2)} | ${(held / MIB).toFixed(2)} | ${(m.peakRssDelta / MIB).toFixed(2)} | ${(m.rest / MIB).toFixed(2)} | ${((m.runtime ?? NaN) / MIB).toFixed(2)} | ${String(accounted(m))} |\n`,
  );
}
const verdict = (values: readonly number[], target: number): string => {
  const within = values.filter((v) => v <= target).length;
  return `${within === values.length ? 'met' : 'NOT met'} (${within} of ${values.length} networks)`;
};
process.stdout.write(
  `\nGeometric mean of ours / onnxruntime-node: ${geometricMean(ratios).toFixed(2)}, of ours / onnxruntime-web: ${geometricMean(webRatios).toFixed(2)}, over ${ratios.length} networks${options.onnx ? ' run from their ONNX files' : ''} (${options.warmup} warm-up and ${options.repetitions} timed inferences each, medians; ${options.runs} run${options.runs === 1 ? '' : 's'} per network, the median ratio; onnxruntime-web's WebAssembly build in a process started with --no-liftoff, timed after V8's optimizing tier compiled it, as ours).\n` +
    `ours / onnxruntime-web at most ${WEB_TARGET} on each network: ${verdict(webRatios, WEB_TARGET)}.\n` +
    `ours / onnxruntime-node at most ${NATIVE_TARGET} on each network: ${verdict(ratios, NATIVE_TARGET)}.\n`,
);
await writeFileAtomic(
  OUT_CSV,
  stringify([
    ['network', 'ours_ms', 'onnxruntime_ms', 'ratio', 'ratio_min', 'ratio_max', 'runs', 'onnxruntime_web_ms', 'web_ratio', 'held_mib', 'peak_delta_mib', 'rest_mib', 'runtime_mib', 'explained'],
    ...rows,
  ]),
);
process.stderr.write(`bench:executor: wrote ${OUT_CSV}\n`);
