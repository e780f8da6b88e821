/**
 * The exact-planning benchmark (`npm run bench:exact`): issue 7's targets, each checked on
 * this machine and reported as met or not. Every plan goes through the verifier.
 *
 *   npm run bench:exact -- [--instance NAME-SUBSTRING]... [--traces DIR] [--quick]
 *
 * - offsets/exact proves the optimum of the six zoo networks, each in under 10 s;
 * - MiniMalloc A, B, E-I, K at 1048576 bytes and C at 1039360, each within 60 s; for D
 *   and J, the best arena found and the best bound proven in 60 s;
 * - bert_base, bert_large, pangu_2.6B, pangu_13B (idealloc): the peak bound reached or the
 *   optimum proven within 60 s;
 * - every omnimalloc-small instance optimal in under 1 s;
 * - offsets/search within 5% of the best known arena on MiniMalloc A-K in 10 s each.
 *
 * --quick divides every time limit by 10 (a smoke run; targets are then not judged).
 * stdout: one table per group with a verdict per row; bench/out/exact.csv: every row.
 * Exit code 1 when a plan is invalid, 2 on bad arguments.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import { lowerBounds } from '../src/core/bounds.ts';
import type { Problem } from '../src/core/problem.ts';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { loadProblem } from '../src/io/source.ts';
import { planAndVerify, type VerifiedResult } from '../src/planners/plan-and-verify.ts';
import { findPlanner } from '../src/planners/registry.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const OUT_DIR = join(REPO_ROOT, 'bench', 'out');

interface Target {
  readonly group: string;
  readonly instance: string;
  readonly source: (traces: string) => string;
  readonly planner: 'offsets/exact' | 'offsets/search';
  readonly limitS: number;
  /** What must hold for the target to be met; undefined: report only. */
  readonly goal?: (result: VerifiedResult, peakBound: number, bestKnown: number | undefined) => boolean;
  readonly goalText: string;
}

const ZOO = ['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface'];
const MINIMALLOC_AT_CAPACITY = ['A', 'B', 'E', 'F', 'G', 'H', 'I', 'K'];
const IDEALLOC = ['bert_base', 'bert_large', 'pangu_2.6B', 'pangu_13B'];
const OMNIMALLOC = ['a.6', 'b.6', 'c.8', 'd.9', 'e.12', 'f.14', 'g.7'];

const proven = (limitS: number) => (r: VerifiedResult) => r.optimal === true && r.timeMs <= limitS * 1000;

function targets(): Target[] {
  const list: Target[] = [];
  for (const name of ZOO) {
    list.push({ group: 'zoo', instance: name, source: () => `zoo:${name}`, planner: 'offsets/exact', limitS: 10, goal: proven(10), goalText: 'proven optimal < 10 s' });
  }
  for (const name of [...MINIMALLOC_AT_CAPACITY, 'C']) {
    const capacity = name === 'C' ? 1039360 : 1048576;
    list.push({
      group: 'minimalloc',
      instance: name,
      source: (traces) => join(traces, 'minimalloc', `${name}.1048576.csv`),
      planner: 'offsets/exact',
      limitS: 60,
      goal: (r) => r.footprint <= capacity && r.timeMs <= 60_000,
      goalText: `arena <= ${capacity} within 60 s`,
    });
  }
  for (const name of ['D', 'J']) {
    list.push({ group: 'minimalloc', instance: name, source: (traces) => join(traces, 'minimalloc', `${name}.1048576.csv`), planner: 'offsets/exact', limitS: 60, goalText: 'best arena and bound in 60 s (reported)' });
  }
  for (const name of IDEALLOC) {
    list.push({
      group: 'idealloc',
      instance: name,
      source: (traces) => join(traces, 'idealloc', `${name}.csv`),
      planner: 'offsets/exact',
      limitS: 60,
      goal: (r, peak) => (r.footprint === peak || r.optimal === true) && r.timeMs <= 60_000,
      goalText: 'peak bound reached or optimum proven within 60 s',
    });
  }
  for (const name of OMNIMALLOC) {
    list.push({ group: 'omnimalloc-small', instance: name, source: (traces) => join(traces, 'omnimalloc-small', `${name}.csv`), planner: 'offsets/exact', limitS: 1, goal: proven(1), goalText: 'proven optimal < 1 s' });
  }
  for (const name of ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K']) {
    list.push({
      group: 'search',
      instance: name,
      source: (traces) => join(traces, 'minimalloc', `${name}.1048576.csv`),
      planner: 'offsets/search',
      limitS: 10,
      goal: (r, _peak, best) => best !== undefined && r.footprint <= 1.05 * best,
      goalText: 'within 5% of the best arena offsets/exact found, in 10 s',
    });
  }
  return list;
}

interface Options {
  instances: string[];
  traces: string;
  quick: boolean;
}

function parseArguments(argv: readonly string[]): Options {
  const options: Options = { instances: [], traces: resolve(REPO_ROOT, '..', 'shared', 'traces'), quick: false };
  for (let k = 0; k < argv.length; k++) {
    const flag = argv[k];
    const value = (): string => {
      const next = argv[++k];
      if (next === undefined) fail(`${flag} needs a value.`);
      return next;
    };
    if (flag === '--instance') options.instances.push(value());
    else if (flag === '--traces') options.traces = resolve(value());
    else if (flag === '--quick') options.quick = true;
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: npm run bench:exact -- [--instance NAME-SUBSTRING]... [--traces DIR] [--quick]');
      process.exit(0);
    } else fail(`unknown argument "${flag}".`);
  }
  return options;
}

function fail(message: string): never {
  process.stderr.write(`bench:exact: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  const scale = options.quick ? 0.1 : 1;
  const rows: Record<string, string | number | boolean>[] = [];
  /** Best arena offsets/exact found per MiniMalloc instance: the yardstick of offsets/search. */
  const bestKnown = new Map<string, number>();
  let invalid = false;
  const chosen = targets().filter((t) => options.instances.length === 0 || options.instances.some((s) => t.instance.includes(s)));
  for (const [index, target] of chosen.entries()) {
    const source = target.source(options.traces);
    if (!source.startsWith('zoo:') && !existsSync(source)) {
      process.stderr.write(`bench:exact: skipping ${target.group}/${target.instance}: ${source} is absent.\n`);
      continue;
    }
    process.stderr.write(`[${index + 1}/${chosen.length}] ${target.planner} on ${target.group}/${target.instance} (limit ${target.limitS * scale} s)\n`);
    const problem: Problem = await loadProblem(source, source.startsWith('zoo:') ? { elementSize: 4 } : {});
    const peak = lowerBounds(problem).offsets;
    const result = planAndVerify(findPlanner(target.planner), problem, { timeLimitMs: target.limitS * scale * 1000, seed: 1 });
    if (!result.valid) invalid = true;
    if (target.planner === 'offsets/exact' && target.group === 'minimalloc') bestKnown.set(target.instance, result.footprint);
    const met = !result.valid ? false : target.goal === undefined || options.quick ? undefined : target.goal(result, peak, bestKnown.get(target.instance));
    rows.push({
      group: target.group,
      instance: target.instance,
      planner: target.planner,
      records: problem.records.length,
      arena: result.footprint,
      peakBound: peak,
      provenBound: result.bound ?? '',
      optimal: result.optimal ?? '',
      overPeak: (result.footprint / peak).toFixed(4),
      seconds: (result.timeMs / 1000).toFixed(2),
      target: target.goalText,
      met: !result.valid ? 'INVALID PLAN' : met === undefined ? (options.quick ? 'not judged (--quick)' : 'reported') : met ? 'yes' : 'NO',
    });
  }
  const columns = ['group', 'instance', 'planner', 'records', 'arena', 'peakBound', 'provenBound', 'optimal', 'overPeak', 'seconds', 'target', 'met'];
  console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${columns.map((c) => String(row[c])).join(' | ')} |`);
  const judged = rows.filter((r) => r.met === 'yes' || r.met === 'NO');
  console.log(`\ntargets met: ${judged.filter((r) => r.met === 'yes').length} of ${judged.length}`);
  await writeFileAtomic(join(OUT_DIR, 'exact.csv'), stringify([columns, ...rows.map((row) => columns.map((c) => row[c]))]));
  if (invalid) process.exitCode = 1;
}

await main();
