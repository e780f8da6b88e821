/**
 * Two builds of the CPU executor against each other (`npm run bench:executor-builds`): this
 * checkout's `memplan exec` and another checkout's (`--against DIR`, built with `npm run
 * build`), each network run by both in alternation, round after round, every run in a fresh
 * process with onnxruntime-node (one thread) timed beside it (`exec --peers node`; a build
 * older than that option runs `exec --peer`, which times onnxruntime-web as well).
 *
 *   npm run bench:executor-builds -- --against DIR [--network NAME-SUBSTRING]... [--rounds N] [--repetitions N] [--warmup N]
 *
 * Why alternation: on a shared machine one process of a build differs from the next by as much
 * as two builds do, and the machine drifts over minutes. Runs of the two builds next to each
 * other in time are compared as a pair (this build's median latency over the other's, in the
 * same round), and the side that runs first swaps every round. A network is "slower" or
 * "faster" only when every round's pair says so; otherwise "not told apart". The ratio to
 * onnxruntime is given per side as well (median and min-max over the rounds).
 *
 * stdout: a table; stderr: progress. bench/out/executor-builds.csv: every run, written as each
 * ends. Exit code 2 on bad arguments.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'csv-stringify/sync';
import { geometricMean, median } from 'simple-statistics';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { ZOO } from '../src/models/zoo.ts';
import { BENCH_OUT, REPO_ROOT } from './bench-out.ts';

const OUT_CSV = join(BENCH_OUT, 'executor-builds.csv');
const USAGE = 'usage: npm run bench:executor-builds -- --against DIR [--network NAME-SUBSTRING]... [--rounds N] [--repetitions N] [--warmup N]';
const run = promisify(execFile);

function refuse(message: string): never {
  process.stderr.write(`bench:executor-builds: ${message}\n${USAGE}\n`);
  process.exit(2);
}

interface Options {
  against: string;
  networks: string[];
  rounds: number;
  repetitions: number;
  warmup: number;
}

function parse(args: readonly string[]): Options {
  const networks: string[] = [];
  let against: string | undefined;
  const counts = { '--rounds': 5, '--repetitions': 10, '--warmup': 5 };
  for (let k = 0; k < args.length; k += 2) {
    const [flag, value] = [args[k], args[k + 1]];
    if (flag !== '--network' && flag !== '--against' && !(flag in counts)) refuse(`unknown argument "${flag}".`);
    if (value === undefined) refuse(`${flag} needs a value.`);
    if (flag === '--network') networks.push(value);
    else if (flag === '--against') against = resolve(value);
    else {
      const least = flag === '--warmup' ? 0 : 1;
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < least) refuse(`${flag} must be a whole number >= ${least}, got ${value}.`);
      counts[flag as keyof typeof counts] = n;
    }
  }
  if (against === undefined) refuse('--against DIR is required: the checkout of the other build.');
  return { against, networks, rounds: counts['--rounds'], repetitions: counts['--repetitions'], warmup: counts['--warmup'] };
}

const options = parse(process.argv.slice(2));
/** A checkout's compiled program: dist/cli/memplan.js, or dist/cli/main.js in builds before it had its own file. */
const program = (checkout: string): string => {
  const entry = join(checkout, 'dist', 'cli', 'memplan.js');
  return existsSync(entry) ? entry : join(checkout, 'dist', 'cli', 'main.js');
};
const sides = { this: program(REPO_ROOT), other: program(options.against) };
for (const [side, cli] of Object.entries(sides)) {
  if (!existsSync(cli)) refuse(`${side === 'this' ? 'this checkout' : options.against} has no ${cli}: run npm run build there first.`);
}
const chosen = ZOO.filter((m) => options.networks.length === 0 || options.networks.some((s) => m.name.includes(s)));
if (chosen.length === 0) refuse(`no zoo network matches ${options.networks.join(', ')}.`);

interface Timing {
  oursMs: number;
  peerMs: number;
}

/**
 * The native peer alone where the build has `--peers` (onnxruntime-web's process would
 * compile its WebAssembly for 9-12 s of CPU a run, for a timing this comparison does not read).
 */
const peerArgs = new Map<string, Promise<string[]>>();
function nativePeerArgs(cli: string): Promise<string[]> {
  const known = peerArgs.get(cli) ?? run(process.execPath, [cli, 'exec', '--help']).then(({ stdout }) => (stdout.includes('--peers') ? ['--peers', 'node'] : ['--peer']));
  peerArgs.set(cli, known);
  return known;
}

async function time(cli: string, network: string): Promise<Timing> {
  const args = [cli, 'exec', `zoo:${network}`, ...(await nativePeerArgs(cli)), '--json', '--repetitions', String(options.repetitions), '--warmup', String(options.warmup)];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 2 ** 20 });
  const report = JSON.parse(stdout) as { latencyMs: { median: number }; peer?: { latencyMs: { median: number } } };
  if (report.peer === undefined) throw new Error(`${cli} exec --peer gave no onnxruntime timing for ${network}.`);
  return { oursMs: report.latencyMs.median, peerMs: report.peer.latencyMs.median };
}

const runs: { network: string; round: number; side: 'this' | 'other'; timing: Timing }[] = [];
const writeCsv = (): Promise<void> =>
  writeFileAtomic(
    OUT_CSV,
    stringify([
      ['network', 'round', 'build', 'ours_ms', 'onnxruntime_ms'],
      ...runs.map((r) => [r.network, r.round, r.side === 'this' ? REPO_ROOT : options.against, r.timing.oursMs, r.timing.peerMs]),
    ]),
  );
for (let round = 1; round <= options.rounds; round++) {
  for (const model of chosen) {
    const order: ('this' | 'other')[] = round % 2 === 1 ? ['other', 'this'] : ['this', 'other'];
    for (const side of order) {
      process.stderr.write(`bench:executor-builds: round ${round} of ${options.rounds}, ${model.name}, ${side === 'this' ? 'this build' : options.against}\n`);
      const timing = await time(sides[side], model.name).catch((error: { stderr?: string; message: string }) => {
        // Said, and left out: that round's pair of this network is incomplete and is not compared.
        const said =
          (error.stderr ?? '')
            .trim()
            .split('\n')
            .filter((line) => line.trim() !== '')
            .slice(-3)
            .join(' / ') || error.message;
        process.stderr.write(`bench:executor-builds: ${model.name} failed on ${side === 'this' ? 'this build' : options.against} (round ${round}), left out: ${said}\n`);
        return undefined;
      });
      if (timing === undefined) continue;
      runs.push({ network: model.name, round, side, timing });
      // Every run as it comes: a long comparison stopped halfway keeps what it measured.
      await writeCsv();
    }
  }
}

const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
process.stdout.write(`this build: ${REPO_ROOT}; other: ${options.against}; ${options.rounds} rounds, ${options.warmup} warm-up and ${options.repetitions} timed inferences per run\n\n`);
process.stdout.write(
  '| network | other: ours / onnxruntime | min–max | this: ours / onnxruntime | min–max | this / other, paired ours ms (median) | min–max | verdict |\n|---|---:|---|---:|---|---:|---|---|\n',
);
const pairedMedians: number[] = [];
for (const model of chosen) {
  const of = (side: 'this' | 'other') => runs.filter((r) => r.network === model.name && r.side === side).map((r) => r.timing);
  const [mine, theirs] = [of('this'), of('other')];
  const ratio = (ts: Timing[]) => ts.map((t) => t.oursMs / t.peerMs);
  const paired: number[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const pair = (['this', 'other'] as const).map((side) => runs.find((r) => r.network === model.name && r.round === round && r.side === side)?.timing);
    if (pair[0] !== undefined && pair[1] !== undefined) paired.push(pair[0].oursMs / pair[1].oursMs);
  }
  if (paired.length === 0) {
    process.stdout.write(`| ${model.name} | no complete round | | | | | | not measured |\n`);
    continue;
  }
  const verdict = paired.length < 2 ? 'not told apart (one round)' : paired.every((p) => p > 1) ? 'slower' : paired.every((p) => p < 1) ? 'faster' : 'not told apart';
  pairedMedians.push(median(paired));
  process.stdout.write(
    `| ${model.name} | ${median(ratio(theirs)).toFixed(2)} | ${range(ratio(theirs))} | ${median(ratio(mine)).toFixed(2)} | ${range(ratio(mine))} | ${median(paired).toFixed(2)} | ${range(paired)} | ${verdict} |\n`,
  );
}
process.stdout.write(
  `\nGeometric mean of the paired medians (this / other): ${geometricMean(pairedMedians).toFixed(2)} over ${pairedMedians.length} networks. A verdict other than "not told apart" needs every round to agree.\n`,
);
process.stderr.write(`bench:executor-builds: wrote ${OUT_CSV}\n`);
