import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadExperiment } from '../experiments/config.ts';
import { ExperimentError } from '../experiments/experiment-error.ts';
import type { LoadRecord } from '../experiments/machine-load.ts';
import type { Pinning } from '../measuring/isolation/pin-core.ts';
import type { CellResult } from '../experiments/result.ts';
import { ResultStore } from '../experiments/result-store.ts';
import type { RunInfo } from '../experiments/run-info.ts';
import { runExperiment } from '../experiments/runner.ts';
import { DEFAULT_TIE_ORDERS, runTieOrderStudy, type TieOrderStudy } from '../experiments/tie-orders.ts';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { footprintChartSpec } from './charts/footprint-chart.ts';
import { renderChart } from './charts/render.ts';
import { tieOrderChartSpec } from './charts/tie-order-chart.ts';
import { claimsToMarkdown, evaluateClaims, TOLERANCE } from './claims.ts';
import { drawPicture } from './picture.ts';
import { runTable, writeTable } from './run-report.ts';
import { tieOrderCsv, tieOrderMarkdown } from './tie-order-table.ts';

const EXPERIMENTS = fileURLToPath(new URL('../../experiments/', import.meta.url));

export interface ReproduceOptions {
  /** Where the reproduction goes (default results/paper). */
  readonly out: string;
  /** Where the two runs go (default results). */
  readonly runs: string;
  /** Random tie orders per network in the tie-order study (default 200). */
  readonly tieOrders?: number;
  /** Where the latency runs live (default results): claim 7 reads the run `<root>/latency-cpu/claim-7-run.json` names. */
  readonly latencyRoot?: string;
  /** Run `experiments/latency-cpu.json` again first (minutes) and name the new run for claim 7. */
  readonly rerunLatency?: boolean;
  readonly quiet?: boolean;
}

/** Rule variants shown in the tie-order study beside each table's strategies (not in the tables). */
const TIE_ORDER_VARIANTS = {
  table1: ['shared-objects/greedy-by-size-improved-size-first'],
  table2: ['offsets/strip-packing-best-fit-smaller-first'],
} as const;

/**
 * The file that names the latency run claim 7 reads, in `<root>/latency-cpu/`: claim 7
 * changes only when `memplan reproduce --latency` measures a new run and names it here,
 * never because some run of experiments/latency-cpu.json happened to be the latest.
 */
export const LATENCY_RUN_FILE = 'claim-7-run.json';

interface LatencyEvidence {
  readonly cells: CellResult[];
  /** Where the cells come from, the machine, its load and the pinning, in sentences. */
  readonly source: string;
  /** Set where the machine was busy while timing: how busy, in one sentence. */
  readonly busy?: string;
}

/** The latency run `LATENCY_RUN_FILE` names under `root`, or undefined where none is named. */
export async function latencyEvidence(root: string): Promise<LatencyEvidence | undefined> {
  const pointer = join(root, 'latency-cpu', LATENCY_RUN_FILE);
  if (!existsSync(pointer)) return undefined;
  let run: unknown;
  try {
    run = (JSON.parse(await readFile(pointer, 'utf8')) as { run?: unknown }).run;
  } catch (error) {
    throw new ExperimentError(`${pointer}: not valid JSON (${(error as Error).message}); it names the latency run of claim 7 as {"run": "<run-id>"}.`);
  }
  if (typeof run !== 'string' || run === '' || /[\\/]/.test(run)) throw new ExperimentError(`${pointer}: "run" must name a run folder beside it, got ${JSON.stringify(run)}.`);
  const store = new ResultStore(join(root, 'latency-cpu', run));
  if (!existsSync(join(store.dir, 'run.json'))) throw new ExperimentError(`${pointer} names the latency run ${run}, which is not there; \`npx memplan reproduce --latency\` measures a new one.`);
  const cells = await store.readEachOnce();
  if (cells.length === 0) return undefined;
  const info = await store.readRunInfo<RunInfo & { load?: readonly LoadRecord[] }>();
  const where = relative(process.cwd(), store.dir).split('\\').join('/');
  const busy = info.load?.find((l) => l.busy);
  const others = info.load?.map((l) => l.otherCores).filter((c): c is number => c !== undefined) ?? [];
  const load =
    info.load === undefined
      ? " The machine's load was not recorded while timing."
      : busy !== undefined
        ? ''
        : others.length > 0
          ? ` The machine was quiet while timing: other processes used at most ${Math.max(...others).toFixed(2)} of a core on average.`
          : ` The machine was quiet while timing (1-minute load average ${Math.max(...info.load.map((l) => l.loadAverageAfter)).toFixed(2)} at most).`;
  return {
    cells,
    source: `Measured by experiments/latency-cpu.json (${where}, named by ${LATENCY_RUN_FILE}) on ${info.date.slice(0, 10)}: ${info.machine.cpu}, ${info.machine.cores} cores, ${info.machine.os}, Node ${info.versions.node}.${load}${pinningSentence(cells)}`,
    ...(busy !== undefined ? { busy: busySentence(busy) } : {}),
  };
}

function busySentence(load: LoadRecord): string {
  return load.otherCores !== undefined
    ? `the machine was busy while timing (other processes used ${load.otherCores.toFixed(2)} of a core on average over ${Math.round(load.seconds)} s).`
    : `the machine was busy while timing (1-minute load average ${load.loadAverageBefore.toFixed(2)} before, ${load.loadAverageAfter.toFixed(2)} after).`;
}

/** Where the measured processes ran: pinned to one core, or why not (as their device info says). */
function pinningSentence(cells: readonly CellResult[]): string {
  const pinnings = cells.map((c) => (c.device as { pinning?: Pinning } | undefined)?.pinning).filter((p): p is Pinning => p !== undefined);
  if (pinnings.length === 0) return ' The measured processes were not pinned to a core.';
  const cores = [...new Set(pinnings.map((p) => p.core))];
  if (pinnings.length === cells.length && cores.length === 1 && cores[0] !== null) return ` Every measured process was pinned to core ${cores[0]} (taskset).`;
  const why = pinnings.find((p): p is Extract<Pinning, { core: null }> => p.core === null)?.why;
  return ` Not every measured process was pinned to one core${why ? ` (${why})` : ''}.`;
}

/** Measures a new latency run under `root` and names it for claim 7. */
async function measureLatency(root: string, quiet?: boolean): Promise<void> {
  const outcome = await runExperiment(await loadExperiment(join(EXPERIMENTS, 'latency-cpu.json')), { root, quiet });
  await nameLatencyRun(root, basename(outcome.dir));
}

/** Names `run` (a folder of `<root>/latency-cpu/`) as the latency run claim 7 reads. */
export async function nameLatencyRun(root: string, run: string): Promise<void> {
  const named = { $comment: 'The latency run claim 7 of results/paper reads; `npx memplan reproduce --latency` measures a new one and names it here.', run };
  await writeFileAtomic(join(root, 'latency-cpu', LATENCY_RUN_FILE), `${JSON.stringify(named, null, 2)}\n`);
}

/**
 * `memplan reproduce`: runs Table 1 and Table 2, evaluates the claims, and renders tables,
 * charts and a README page into `out`. Everything but `timings.md` depends only on the
 * code, so a re-run on any machine rewrites the committed files byte for byte.
 */
export async function reproducePaper(options: ReproduceOptions): Promise<string[]> {
  const runs: Record<'table1' | 'table2', { title: string; results: readonly CellResult[]; markdown: string }> = {} as never;
  for (const name of ['table1', 'table2'] as const) {
    const experiment = await loadExperiment(join(EXPERIMENTS, `${name}.json`));
    const outcome = await runExperiment(experiment, { root: options.runs, quiet: options.quiet });
    const markdown = await writeTable(runTable({ experiment, results: outcome.results }), join(options.out, name));
    await renderChart(footprintChartSpec(outcome.results, { title: `${experiment.title}: footprint over the lower bound` }), join(options.out, 'charts', `${name}-footprint`));
    runs[name] = { title: experiment.title, results: outcome.results, markdown };
  }
  const draws = options.tieOrders ?? DEFAULT_TIE_ORDERS;
  const studies = {} as Record<'table1' | 'table2', TieOrderStudy>;
  const tieOrderTables: string[] = [];
  for (const name of ['table1', 'table2'] as const) {
    const experiment = await loadExperiment(join(EXPERIMENTS, `${name}.json`));
    const study = await runTieOrderStudy(experiment, { draws, extraPlanners: TIE_ORDER_VARIANTS[name], quiet: options.quiet });
    studies[name] = study;
    const markdown = tieOrderMarkdown(study, experiment.title);
    await writeFileAtomic(join(options.out, `tie-orders-${name}.md`), markdown);
    await writeFileAtomic(join(options.out, `tie-orders-${name}.csv`), tieOrderCsv(study));
    await renderChart(tieOrderChartSpec(study, { title: `${experiment.title}: footprint under random tie orders` }), join(options.out, 'charts', `${name}-tie-orders`));
    tieOrderTables.push(markdown);
  }

  const latencyRoot = options.latencyRoot ?? 'results';
  if (options.rerunLatency) await measureLatency(latencyRoot, options.quiet);
  const latency = await latencyEvidence(latencyRoot);
  const claims = evaluateClaims({
    sharedObjects: runs.table1.results,
    offsets: runs.table2.results,
    tieOrders: { sharedObjects: studies.table1, offsets: studies.table2 },
    ...(latency ? { latency: latency.cells, latencySource: latency.source, ...(latency.busy ? { latencyBusy: latency.busy } : {}) } : {}),
  });
  const claimsMarkdown = claimsToMarkdown(claims);
  await writeFileAtomic(join(options.out, 'claims.md'), claimsMarkdown);
  await writeFileAtomic(join(options.out, 'claims.json'), `${JSON.stringify(claims, null, 2)}\n`);
  const pictures = [];
  for (const planner of ['offsets/greedy-by-size', 'offsets/strip-packing-best-fit']) {
    pictures.push(await drawPicture('zoo:deeplab-v3', planner, join(options.out, 'charts'), { elementSize: 4 }));
  }
  await writeFileAtomic(join(options.out, 'timings.md'), timingsMarkdown([...runs.table1.results, ...runs.table2.results]));
  await writeFileAtomic(
    join(options.out, 'README.md'),
    page(
      runs.table1.markdown,
      runs.table2.markdown,
      tieOrderTables,
      claimsMarkdown,
      pictures.map((p) => p.replace(/^.*[\\/]charts[\\/]/, 'charts/')),
    ),
  );
  return ['README.md', 'table1.md', 'table2.md', 'tie-orders-table1.md', 'tie-orders-table2.md', 'claims.md', 'timings.md'].map((f) => join(options.out, f));
}

function timingsMarkdown(results: readonly CellResult[]): string {
  const rows = results.map(
    (r) => `| ${r.experiment} | ${r.modelLabel} | ${r.planner} | ${r.records} | ${r.timeMs.median.toFixed(3)} | ${r.timeMs.min.toFixed(3)} | ${r.timeMs.mad.toFixed(3)} | ${r.timeMs.runs} |`,
  );
  return `${[
    '# Planning times of the last `memplan reproduce` (machine-dependent, not committed)',
    '',
    '| table | network | planner | records | median ms | min ms | MAD ms | runs |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n')}\n`;
}

function page(table1: string, table2: string, tieOrders: readonly string[], claims: string, pictures: readonly string[]): string {
  return `${[
    '# Reproduction of Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference" (2020)',
    '',
    'Generated by `npx memplan reproduce`; do not edit by hand. Every number below comes from a plan that the',
    "independent verifier accepted. Networks: the zoo's six networks, built op for op like the published",
    'models; records at fp32 with graph inputs and outputs left out (see docs/design.md). Sizes in MiB (2^20 bytes).',
    'Planning times depend on the machine and are in `timings.md`, written by each run and not committed.',
    '',
    "The paper's numbers came from the TFLite GPU delegate's memory_management code. The strategies TFLite ships",
    '(naive, equality, Greedy in order, Min-cost Flow, Greedy by Breadth, Greedy by Size Improved, offsets Greedy by',
    'Size) give exactly the totals of that code (LiteRT, unmodified) on every instance of its published totals: they',
    "plan the records in TFLite's order (by first use) and break every tie as its code does (tested).",
    '',
    '## Table 1: Shared Objects',
    '',
    table1,
    'Also as [CSV](table1.csv) and [LaTeX](table1.tex). Greedy by Size Improved picks, within a stage, the tensor with the',
    "smallest gap first, then the largest, as TFLite's priority does; `shared-objects/greedy-by-size-improved-size-first`",
    "(size before gap, a variant of this project, not the paper's strategy) is shown in the tie-order study below.",
    '',
    '![Table 1 footprints over the lower bound](charts/table1-footprint.png)',
    '',
    '## Table 2: Offset Calculation',
    '',
    table2,
    'Also as [CSV](table2.csv) and [LaTeX](table2.tex). Greedy and Min-cost Flow are shared-objects strategies laid out contiguously, as in the paper.',
    '',
    'What cannot be matched to code: offsets Greedy by Breadth follows the paper (section 5.3: the gap search of Algorithm 3',
    'in breadth order), while TFLite lays out the shared objects of its Greedy by Breadth contiguously. Strip Packing',
    'Best-fit has no public code; our tie rule among records of equal lifetime is "larger first, then record order", and',
    'the tie-order study shows the other rule ("smaller first") beside it.',
    '',
    '![Table 2 footprints over the lower bound](charts/table2-footprint.png)',
    '',
    '## How much the order of equal keys moves each strategy',
    '',
    'The paper-era code sorted with an unstable sort; LiteRT now sorts stably, which the tables follow. Below, every',
    'strategy plans each network under seeded random orders of equal keys (equal sizes, breadths, first uses, gaps):',
    'a strategy whose footprint never moves was found independent of the tie order on that network, not assumed so.',
    'Also as CSV ([Table 1](tie-orders-table1.csv), [Table 2](tie-orders-table2.csv)); `--tie-orders N` sets the number of orders.',
    '',
    ...tieOrders.flatMap((t, k) => [t, `![Tie-order ranges, Table ${k + 1}](charts/table${k + 1}-tie-orders.png)`, '']),
    '## The claims of the paper, on our numbers',
    '',
    claims,
    `Verdicts: "holds" when our figures match the paper's within ${TOLERANCE.percentagePoints} percentage points (${TOLERANCE.times}x for ratios); "holds in direction" when`,
    'the ordering or sign is the paper\'s but the magnitude is not (ours beside the paper\'s in the figures); "does not hold"',
    'otherwise; "inconclusive" when the measurements cannot decide (timing intervals that overlap, a busy machine).',
    'Claims 1-6 are decided again under every random tie order of the study above. Claim 7 reads the committed latency',
    `run that results/latency-cpu/${LATENCY_RUN_FILE} names (\`npx memplan reproduce --latency\` measures a new one on this machine and names it).`,
    '',
    "## Allocation pictures (DeepLab v3, as the paper's Figures 3-6)",
    '',
    ...pictures.map((p) => `![${p}](${p}.png)\n`),
  ].join('\n')}`;
}
