/**
 * The CPU executor against onnxruntime-node on the zoo's networks (`npm run bench:executor`):
 * per network, one measured run of offsets/greedy-by-size in a process of its own (its
 * latency and its memory, accounted for: report/memory-table.ts `accounted`) and
 * onnxruntime-node on the same network, weights and inputs (one thread, in this process),
 * timed after the same warm-up. Ratios are measured in one run; compare builds on one
 * machine, and run it on a quiet one.
 *
 *   npm run bench:executor -- [--network NAME-SUBSTRING]... [--repetitions N] [--warmup N]
 *
 * stdout: a table; stderr: progress. bench/out/executor.csv: every row. Exit code 2 on bad
 * arguments.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import { geometricMean } from 'simple-statistics';
import { cpuBackend } from '../src/backends/cpu/cpu-backend.ts';
import { execute } from '../src/backends/execute.ts';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { buildZooModel, ZOO } from '../src/models/zoo.ts';
import { findPlanner } from '../src/planners/registry.ts';
import { accounted } from '../src/report/memory-table.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const OUT_CSV = join(REPO_ROOT, 'bench', 'out', 'executor.csv');
const USAGE = 'usage: npm run bench:executor -- [--network NAME-SUBSTRING]... [--repetitions N] [--warmup N]';
const MIB = 2 ** 20;

function refuse(message: string): never {
  process.stderr.write(`bench:executor: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parse(args: readonly string[]): { networks: string[]; repetitions: number; warmup: number } {
  const networks: string[] = [];
  let repetitions = 10;
  let warmup = 5;
  for (let k = 0; k < args.length; k += 2) {
    const [flag, value] = [args[k], args[k + 1]];
    if (!['--network', '--repetitions', '--warmup'].includes(flag)) refuse(`unknown argument "${flag}".`);
    if (value === undefined) refuse(`${flag} needs a value.`);
    if (flag === '--network') networks.push(value);
    else if (flag === '--repetitions' || flag === '--warmup') {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < (flag === '--repetitions' ? 1 : 0)) refuse(`${flag} must be a whole number${flag === '--repetitions' ? ' >= 1' : ' >= 0'}, got ${value}.`);
      if (flag === '--repetitions') repetitions = n;
      else warmup = n;
    }
  }
  return { networks, repetitions, warmup };
}

const options = parse(process.argv.slice(2));
const chosen = ZOO.filter((m) => options.networks.length === 0 || options.networks.some((s) => m.name.includes(s)));
if (chosen.length === 0) refuse(`no zoo network matches ${options.networks.join(', ')}.`);

const planner = findPlanner('offsets/greedy-by-size');
const rows: (string | number)[][] = [];
const ratios: number[] = [];
process.stdout.write('| network | ours ms | onnxruntime ms | ours / onnxruntime | planned + weights + io MiB | peak − baseline MiB | rest MiB | runtime MiB | explained |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n');
for (const model of chosen) {
  process.stderr.write(`bench:executor: ${model.name}\n`);
  const report = await execute(buildZooModel(`zoo:${model.name}`), { backend: cpuBackend, planner, repetitions: options.repetitions, warmup: options.warmup, seed: 1, peer: true, verifyByExecution: false });
  const peer = report.peer!;
  const m = report.memory;
  const held = m.planned + m.weights + m.io;
  ratios.push(peer.ratio);
  const row = [model.name, report.latencyMs.median, peer.latencyMs.median, peer.ratio, held / MIB, m.peakRssDelta / MIB, m.rest / MIB, (m.runtime ?? NaN) / MIB, String(accounted(m))];
  rows.push(row);
  const [name, ours, theirs, ratio, heldMib, delta, rest, runtime, explained] = row as [string, number, number, number, number, number, number, number, string];
  process.stdout.write(`| ${name} | ${ours.toFixed(1)} | ${theirs.toFixed(1)} | ${ratio.toFixed(2)} | ${heldMib.toFixed(2)} | ${delta.toFixed(2)} | ${rest.toFixed(2)} | ${runtime.toFixed(2)} | ${explained} |\n`);
}
process.stdout.write(`\nGeometric mean of ours / onnxruntime: ${geometricMean(ratios).toFixed(2)} over ${ratios.length} networks (${options.warmup} warm-up and ${options.repetitions} timed inferences each, medians).\n`);
await writeFileAtomic(OUT_CSV, stringify([['network', 'ours_ms', 'onnxruntime_ms', 'ratio', 'held_mib', 'peak_delta_mib', 'rest_mib', 'runtime_mib', 'explained'], ...rows]));
process.stderr.write(`bench:executor: wrote ${OUT_CSV}\n`);
