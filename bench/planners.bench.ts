/**
 * The planners benchmark (`npm run bench`): every planner of the registry on the traces
 * under ../shared/traces (relative to the repo root) and on generated chains and DAG-like
 * problems of 1k, 10k and 100k records. Every plan goes through the verifier once
 * (planAndVerify); the timing is repeated and the median kept.
 *
 *   npm run bench -- [--planner ID-SUBSTRING]... [--instance NAME-SUBSTRING]... [--runs N] [--traces DIR] [--all] [--time-limit S]
 *
 * Search planners (offsets/exact, offsets/search, ...) run once per instance under
 * --time-limit seconds (default 10); `npm run bench:exact` checks issue 7's targets.
 * Planners skip instances above their maxRecords (min-cost flow, greedy by size improved);
 * --all lifts that.
 * stdout: a table per instance and a summary per instance group. stderr: progress.
 * bench/out/planners.csv: every row (rewritten atomically after each instance).
 * Exit code 1 when any plan is invalid or a planner throws; 2 on bad arguments or an
 * unreadable trace.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { geometricMean } from 'simple-statistics';
import { lowerBounds, type LowerBounds } from '../src/core/bounds.ts';
import { naiveFootprint, type Problem } from '../src/core/problem.ts';
import { chainProblem, randomDagProblem } from '../src/core/synthetic.ts';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { loadProblem } from '../src/io/source.ts';
import { planAndVerify } from '../src/planners/plan-and-verify.ts';
import type { Complexity, Planner } from '../src/planners/planner.ts';
import { PLANNERS } from '../src/planners/registry.ts';
import { BENCH_OUT, REPO_ROOT } from './bench-out.ts';

const DEFAULT_TRACES = resolve(REPO_ROOT, '..', 'shared', 'traces');
const TRACE_SETS = ['minimalloc', 'omnimalloc-small', 'idealloc'] as const;
const OUT_DIR = BENCH_OUT;
const OUT_CSV = join(OUT_DIR, 'planners.csv');

/** A single run longer than this is not repeated. */
const NO_REPEAT_AFTER_MS = 20_000;
/** No further repetition starts once the runs of one (instance, planner) would pass this. */
const REPEAT_BUDGET_MS = 30_000;
const GENERATED_SIZES = [1_000, 10_000, 100_000] as const;
const SEEDS = { chain: 0xc4a1, dag: 0xda6 } as const;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------- arguments

interface Options {
  planners: string[];
  instances: string[];
  runs: number | undefined;
  traces: string;
  /** Ignore the planners' maxRecords (the per-run safety still applies). */
  all: boolean;
  /** Seconds each search planner may run per instance. */
  timeLimit: number;
}

const USAGE = 'usage: npm run bench -- [--planner ID-SUBSTRING]... [--instance NAME-SUBSTRING]... [--runs N] [--traces DIR] [--all] [--time-limit S]';

function parseArguments(argv: readonly string[]): Options {
  const options: Options = { planners: [], instances: [], runs: undefined, traces: DEFAULT_TRACES, all: false, timeLimit: 10 };
  for (let k = 0; k < argv.length; k++) {
    let flag = argv[k];
    let value: string | undefined;
    const eq = flag.indexOf('=');
    if (flag.startsWith('--') && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    const take = (): string => {
      if (value !== undefined) return value;
      const next = argv[++k];
      if (next === undefined) usageError(`${flag} needs a value.`);
      return next;
    };
    switch (flag) {
      case '--planner':
        options.planners.push(take());
        break;
      case '--instance':
        options.instances.push(take());
        break;
      case '--runs': {
        const text = take();
        const runs = Number(text);
        if (!Number.isSafeInteger(runs) || runs < 1) usageError(`--runs must be a whole number >= 1, got "${text}".`);
        options.runs = runs;
        break;
      }
      case '--time-limit': {
        const seconds = Number(take());
        if (!(seconds >= 0)) usageError(`--time-limit must be a number of seconds >= 0.`);
        options.timeLimit = seconds;
        break;
      }
      case '--all':
        if (value !== undefined) usageError('--all takes no value.');
        options.all = true;
        break;
      case '--traces': {
        options.traces = resolve(take());
        // A folder named on purpose must hold traces; only the default may be absent (a note).
        if (!TRACE_SETS.some((set) => existsSync(join(options.traces, set)))) usageError(`--traces ${options.traces} holds none of ${TRACE_SETS.join(', ')}.`);
        break;
      }
      default:
        usageError(`unknown argument "${argv[k]}".`);
    }
  }
  return options;
}

function usageError(message: string): never {
  console.error(`bench: ${message}\n${USAGE}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------- instances

interface Instance {
  /** `<group>/<name>`, what --instance matches. */
  readonly name: string;
  readonly group: string;
  readonly load: () => Promise<Problem>;
}

function traceInstances(root: string, notes: string[]): Instance[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    notes.push(`traces skipped: ${root} does not exist (the shared trace folder is not checked out next to this repository); only generated problems are benchmarked.`);
    return [];
  }
  const instances: Instance[] = [];
  for (const set of TRACE_SETS) {
    const dir = join(root, set);
    if (!existsSync(dir)) {
      notes.push(`traces skipped: ${dir} does not exist.`);
      continue;
    }
    const files = readdirSync(dir)
      .filter((f) => f.toLowerCase().endsWith('.csv'))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const file of files) {
      const path = join(dir, file);
      instances.push({ name: `${set}/${file.replace(/\.csv$/i, '')}`, group: set, load: () => loadProblem(path) });
    }
  }
  return instances;
}

function generatedInstances(): Instance[] {
  const instances: Instance[] = [];
  for (const [kind, generate, seed] of [
    ['chain', chainProblem, SEEDS.chain],
    ['dag', randomDagProblem, SEEDS.dag],
  ] as const) {
    for (const n of GENERATED_SIZES) {
      instances.push({
        name: `synthetic/${kind}-${n / 1000}k`,
        group: 'synthetic',
        load: async () => generate(n, seed),
      });
    }
  }
  return instances;
}

// ---------------------------------------------------------------------------- rows

type Status = 'ok' | 'skipped' | 'invalid' | 'error';

interface Row {
  instance: string;
  group: string;
  records: number;
  operators: number;
  planner: string;
  approach: string;
  complexity: Complexity;
  status: Status;
  footprint: number | null;
  lowerBound: number | null;
  ratio: number | null;
  medianMs: number | null;
  minMs: number | null;
  runs: number;
  note: string;
}

const CSV_COLUMNS: { key: keyof Row; header: string }[] = [
  { key: 'instance', header: 'instance' },
  { key: 'group', header: 'group' },
  { key: 'records', header: 'records' },
  { key: 'operators', header: 'operators' },
  { key: 'planner', header: 'planner' },
  { key: 'approach', header: 'approach' },
  { key: 'complexity', header: 'complexity' },
  { key: 'status', header: 'status' },
  { key: 'footprint', header: 'footprint_bytes' },
  { key: 'lowerBound', header: 'lower_bound_bytes' },
  { key: 'ratio', header: 'footprint_over_lower_bound' },
  { key: 'medianMs', header: 'median_ms' },
  { key: 'minMs', header: 'min_ms' },
  { key: 'runs', header: 'runs' },
  { key: 'note', header: 'note' },
];

async function writeCsv(rows: readonly Row[]): Promise<void> {
  const text = stringify(
    rows.map((row) => CSV_COLUMNS.map(({ key }) => row[key] ?? '')),
    { header: true, columns: CSV_COLUMNS.map(({ header }) => header) },
  );
  await writeFileAtomic(OUT_CSV, text);
}

// ---------------------------------------------------------------------------- measuring

function defaultRuns(records: number): number {
  return records <= 10_000 ? 5 : records <= 100_000 ? 3 : 1;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sizeLimitFor(planner: Planner, all: boolean): number {
  return all ? Infinity : (planner.maxRecords ?? Infinity);
}

/** Plans once through the verifier, then repeats planner.plan alone for the timing. */
function measure(planner: Planner, problem: Problem, bounds: LowerBounds, instance: Instance, wantedRuns: number, all: boolean, timeLimitMs: number): Row {
  const n = problem.records.length;
  const base = {
    instance: instance.name,
    group: instance.group,
    records: n,
    operators: problem.operatorCount,
    planner: planner.id,
    approach: planner.approach,
    complexity: planner.complexity,
  };
  const bound = planner.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
  const limit = sizeLimitFor(planner, all);
  if (n > limit) {
    return {
      ...base,
      status: 'skipped',
      footprint: null,
      lowerBound: bound,
      ratio: null,
      medianMs: null,
      minMs: null,
      runs: 0,
      note: `skipped (O(${planner.complexity}), n=${n} > ${limit})`,
    };
  }

  const result = planAndVerify(planner, problem, { bounds, timeLimitMs });
  const times = [result.timeMs];
  const notes: string[] = [];
  if (!result.valid) {
    return {
      ...base,
      status: 'invalid',
      footprint: Number.isNaN(result.footprint) ? null : result.footprint,
      lowerBound: bound,
      ratio: Number.isNaN(result.ratioToLowerBound) ? null : result.ratioToLowerBound,
      medianMs: result.timeMs,
      minMs: result.timeMs,
      runs: 1,
      note: `INVALID PLAN: ${result.violations.map((v) => `[${v.kind}] ${v.message}`).join(' ')}`,
    };
  }
  if (result.optimal !== undefined) notes.push(result.optimal ? 'proven optimal' : `best found; optimum >= ${result.bound}`);
  if (planner.searches) {
    // A search's time is its limit or its proof: repeating it measures nothing new.
  } else if (result.timeMs > NO_REPEAT_AFTER_MS) {
    notes.push(`not repeated: one run took ${(result.timeMs / 1000).toFixed(1)} s`);
  } else {
    let spent = result.timeMs;
    while (times.length < wantedRuns) {
      const last = times[times.length - 1];
      if (spent + last > REPEAT_BUDGET_MS) {
        notes.push(`${times.length} of ${wantedRuns} runs (time budget ${REPEAT_BUDGET_MS / 1000} s)`);
        break;
      }
      const started = performance.now();
      const plan = planner.plan(problem, { alignment: 1 });
      const elapsed = performance.now() - started;
      times.push(elapsed);
      spent += elapsed;
      if (plan.footprint !== result.footprint && !notes.some((s) => s.startsWith('NONDETERMINISTIC'))) {
        notes.push(`NONDETERMINISTIC: a repeated run claims ${plan.footprint} bytes, the verified run ${result.footprint}`);
      }
    }
  }
  return {
    ...base,
    status: 'ok',
    footprint: result.footprint,
    lowerBound: bound,
    ratio: result.ratioToLowerBound,
    medianMs: median(times),
    minMs: Math.min(...times),
    runs: times.length,
    note: notes.join('; '),
  };
}

/**
 * Runs every planner a few times on a small problem before anything is timed, so that
 * the first instances do not pay for JIT compilation. Errors are left to the real runs.
 */
function warmUp(planners: readonly Planner[]): void {
  const problem = randomDagProblem(200, 1);
  for (const planner of planners) {
    for (let k = 0; k < 3; k++) {
      try {
        planner.plan(problem, { alignment: 1, timeLimitMs: 50 });
      } catch {
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------- printing

const mib = (bytes: number | null): string => (bytes === null ? '' : (bytes / MIB).toFixed(3));
const fixed3 = (value: number | null): string => (value === null ? '' : Number.isFinite(value) ? value.toFixed(3) : String(value));

function printTable(header: string[], rows: string[][], rightAligned: readonly boolean[], spanFrom: number): void {
  // Rows with fewer cells than the header let their last cell span the rest (skips, errors).
  const widths = header.map((h, c) => Math.max(h.length, ...rows.filter((r) => r.length === header.length || c < r.length - 1).map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) => {
        if (cells.length < header.length && c === cells.length - 1 && c >= spanFrom) return cell;
        return rightAligned[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c]);
      })
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function printInstance(name: string, problem: Problem, bounds: LowerBounds, rows: readonly Row[]): void {
  console.log('');
  console.log(
    `== ${name}: ${problem.records.length} records, ${problem.operatorCount} operators; ` +
      `lower bounds: offsets ${mib(bounds.offsets)} MiB (${bounds.offsets} B), ` +
      `shared objects ${mib(bounds.sharedObjects)} MiB (${bounds.sharedObjects} B); ` +
      `naive ${mib(naiveFootprint(problem))} MiB`,
  );
  // Bytes too: some traces (omnimalloc-small) are a few bytes, all 0.000 MiB.
  const header = ['planner', 'footprint MiB', 'bound MiB', 'footprint B', 'bound B', 'ratio', 'median ms', 'min ms', 'runs', 'note'];
  const cells = rows.map((r): string[] => {
    if (r.status === 'skipped') return [r.planner, r.note];
    if (r.status === 'error') return [r.planner, `ERROR: ${r.note}`];
    const note = r.status === 'invalid' ? r.note.slice(0, 200) : r.note;
    const bytes = (value: number | null): string => (value === null ? '' : String(value));
    return [r.planner, mib(r.footprint), mib(r.lowerBound), bytes(r.footprint), bytes(r.lowerBound), fixed3(r.ratio), fixed3(r.medianMs), fixed3(r.minMs), String(r.runs), note];
  });
  printTable(header, cells, [false, true, true, true, true, true, true, true, true, false], 1);
}

function printSummary(rows: readonly Row[]): void {
  const groups = [...new Set(rows.map((r) => r.group))];
  for (const group of groups) {
    const inGroup = rows.filter((r) => r.group === group);
    const instances = new Set(inGroup.map((r) => r.instance)).size;
    console.log('');
    console.log(`== summary: ${group} (${instances} instances); ratio = footprint / lower bound of the planner's approach`);
    const header = ['planner', 'ran', 'skipped', 'geomean ratio', 'worst ratio', 'worst on', 'sum median ms', 'max median ms', 'slowest on'];
    const planners = [...new Set(inGroup.map((r) => r.planner))];
    const cells = planners.map((planner) => {
      const mine = inGroup.filter((r) => r.planner === planner);
      const ok = mine.filter((r) => r.status === 'ok' && r.ratio !== null && Number.isFinite(r.ratio) && r.ratio > 0);
      const skipped = mine.filter((r) => r.status === 'skipped').length;
      const bad = mine.length - ok.length - skipped;
      if (ok.length === 0) return [planner, '0', String(skipped), bad > 0 ? `${bad} invalid/error` : ''];
      const geomean = geometricMean(ok.map((r) => r.ratio as number));
      const worst = ok.reduce((a, b) => ((b.ratio as number) > (a.ratio as number) ? b : a));
      const slowest = ok.reduce((a, b) => ((b.medianMs as number) > (a.medianMs as number) ? b : a));
      const sumMs = ok.reduce((s, r) => s + (r.medianMs as number), 0);
      return [
        planner,
        String(ok.length) + (bad > 0 ? ` (+${bad} BAD)` : ''),
        String(skipped),
        geomean.toFixed(3),
        fixed3(worst.ratio),
        worst.instance.replace(/^[^/]*\//, ''),
        sumMs.toFixed(3),
        fixed3(slowest.medianMs),
        slowest.instance.replace(/^[^/]*\//, ''),
      ];
    });
    printTable(header, cells, [false, true, true, true, true, false, true, true, false], 3);
  }
}

// ---------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  const started = performance.now();
  const matches = (text: string, filters: readonly string[]): boolean => filters.length === 0 || filters.some((f) => text.toLowerCase().includes(f.toLowerCase()));

  const planners = PLANNERS.filter((p) => matches(p.id, options.planners));
  if (planners.length === 0) usageError(`no planner id contains ${options.planners.map((p) => `"${p}"`).join(' or ')}.`);

  const notes: string[] = [];
  const generated = generatedInstances();
  const candidates = [...traceInstances(options.traces, notes), ...generated];
  const instances = candidates.filter((i) => matches(i.name, options.instances));
  // The missing-traces note matters unless the filters only ask for generated problems.
  const onlyGenerated = options.instances.length > 0 && options.instances.every((f) => generated.some((g) => matches(g.name, [f])));
  if (!onlyGenerated) for (const note of notes) console.log(`note: ${note}`);
  if (instances.length === 0) usageError(`no instance name contains ${options.instances.map((p) => `"${p}"`).join(' or ')}.`);

  console.log(
    `memplan-bench planners: ${instances.length} instances x ${planners.length} planners; ` +
      `runs per instance: ${options.runs ?? '5 up to 10k records, 3 up to 100k, 1 above'}; ` +
      (options.all ? 'no size limits; ' : 'planners skip problems above their maxRecords (--all lifts it); ') +
      `node ${process.version}`,
  );

  const warmUpStarted = performance.now();
  warmUp(planners);
  console.error(`warm-up (every planner 3 times on 200 records) took ${(performance.now() - warmUpStarted).toFixed(0)} ms`);

  const rows: Row[] = [];
  let failures = 0;
  let loadFailures = 0;
  for (const [index, instance] of instances.entries()) {
    let problem: Problem;
    try {
      problem = await instance.load();
    } catch (error) {
      loadFailures++;
      const message = error instanceof Error ? error.message : String(error);
      console.log(`\n== ${instance.name}: NOT LOADED: ${message}`);
      console.error(`[${index + 1}/${instances.length}] ${instance.name}: cannot load: ${message}`);
      continue;
    }
    const n = problem.records.length;
    const boundsStarted = performance.now();
    const bounds = lowerBounds(problem);
    const boundsMs = performance.now() - boundsStarted;
    console.error(`[${index + 1}/${instances.length}] ${instance.name} (${n} records; bounds in ${boundsMs.toFixed(1)} ms)`);
    const runs = options.runs ?? defaultRuns(n);
    const instanceRows: Row[] = [];
    for (const planner of planners) {
      process.stderr.write(`    ${planner.id} ... `);
      let row: Row;
      try {
        row = measure(planner, problem, bounds, instance, runs, options.all, options.timeLimit * 1000);
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        row = {
          instance: instance.name,
          group: instance.group,
          records: n,
          operators: problem.operatorCount,
          planner: planner.id,
          approach: planner.approach,
          complexity: planner.complexity,
          status: 'error',
          footprint: null,
          lowerBound: null,
          ratio: null,
          medianMs: null,
          minMs: null,
          runs: 0,
          note: `planner threw ${message}`,
        };
      }
      if (row.status === 'invalid' || row.status === 'error') {
        failures++;
        process.stderr.write(`${row.status.toUpperCase()}\n`);
        console.error(`\n!!! ${row.status.toUpperCase()}: ${planner.id} on ${instance.name}: ${row.note}\n`);
      } else if (row.status === 'skipped') {
        process.stderr.write(`${row.note}\n`);
      } else {
        process.stderr.write(`${fixed3(row.medianMs)} ms median of ${row.runs}, ratio ${fixed3(row.ratio)}\n`);
      }
      instanceRows.push(row);
    }
    rows.push(...instanceRows);
    printInstance(instance.name, problem, bounds, instanceRows);
    await writeCsv(rows);
  }

  printSummary(rows);
  const skipped = rows.filter((r) => r.status === 'skipped');
  console.log('');
  if (skipped.length > 0) {
    const byPlanner = new Map<string, string[]>();
    for (const r of skipped) byPlanner.set(r.planner, [...(byPlanner.get(r.planner) ?? []), `${r.instance} (n=${r.records})`]);
    console.log('skipped (size limits):');
    for (const [planner, where] of byPlanner) console.log(`  ${planner}: ${where.join(', ')}`);
  }
  const wallS = (performance.now() - started) / 1000;
  console.log(`rows: ${rows.length}; written to ${OUT_CSV}; wall time ${wallS.toFixed(1)} s`);
  if (failures > 0) {
    console.log(`!!! ${failures} plan(s) invalid or planner error(s): see the rows marked INVALID/ERROR above.`);
    process.exitCode = 1;
  } else if (loadFailures > 0) {
    console.log(`!!! ${loadFailures} instance(s) could not be loaded.`);
    process.exitCode = 2;
  } else {
    console.log('every plan verified.');
  }
}

await main();
