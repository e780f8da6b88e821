import { join } from 'node:path';
import { PROCESS_RESERVE_BYTES } from '../../backends/budgeted/budget-share.ts';
import { ResultStore } from '../../experiments/result-store.ts';
import type { FlexnnBudgetConfig } from '../../experiments/studies/flexnn-budget-config.ts';
import type { BudgetCell } from '../../experiments/studies/flexnn-budget.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { budgetLatencyChartSpec, methodLabel } from '../charts/budget-latency-chart.ts';
import { renderChart } from '../charts/render.ts';
import { TOLERANCE } from '../claims.ts';
import { meanInterval } from '../mean-intervals.ts';
import { registerStudyReport } from '../study-reports.ts';
import { claimsTable, flexnnClaims, LARGE_SAVING, PEAK_NOISE_BYTES, SMALL_COST } from './flexnn-claims.ts';

const MIB = 2 ** 20;
const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
const ms = (value: number | undefined): string => (value === undefined ? '' : value.toFixed(1));
const percent = (fraction: number): string => `${(fraction * 100).toFixed(2)}%`;
const signed = (fraction: number): string => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(2)}%`;

function peak(cell: BudgetCell): number {
  return cell.memory?.peakRssDelta ?? NaN;
}

/** Whether a budgeted cell kept its budget as measured; empty for the baselines and cells from before it was measured. */
function kept(cell: BudgetCell): string {
  if (cell.withinBudget === undefined) return '';
  return cell.withinBudget ? 'yes' : `**no** (+${mib(peak(cell) - (cell.budget as number))} MiB)`;
}

function outputs(cell: BudgetCell): string {
  return cell.matchesUnbudgeted === undefined ? '' : cell.matchesUnbudgeted ? 'identical' : '**DIFFER**';
}

/** The cells a storage's tables read: the default (it reads no storage) and the streamed cells from that storage. Cells of a run from before storages were stated have none: they all belong to the first. */
export function fromStorage(cells: readonly BudgetCell[], storage: string, first: boolean): BudgetCell[] {
  return cells.filter((c) => c.method === 'default' || c.storage === storage || (c.storage === undefined && first));
}

function interval(cell: BudgetCell): string {
  const found = meanInterval(cell.samplesMs);
  return found === undefined ? '' : `${found.interval[0].toFixed(1)}–${found.interval[1].toFixed(1)}`;
}

function readSpeed(cell: BudgetCell): string {
  return cell.readBytesPerSecond == null ? '' : (cell.readBytesPerSecond / 1e6).toFixed(0);
}

/** One network's cells from one storage as its table (its Figure 10 data): baselines first, then FlexNN by budget, then the ablation. */
export function networkTable(cells: readonly BudgetCell[]): string {
  const PART = { baseline: 0, budgets: 1, ablation: 2, adaptive: 3 } as const;
  // Baselines, then the sweep by budget (its smallest first, wherever it ran), then the ablation.
  const ordered = [...cells].sort((a, b) => PART[a.part] - PART[b.part] || (a.part === 'budgets' ? (a.budget ?? 0) - (b.budget ?? 0) : 0));
  const rows = ordered.map((c) => {
    const budget = c.budget === null ? '—' : `${mib(c.budget)}${c.minimum ? ' (smallest)' : ''}`;
    if (!c.feasible) {
      const smallest = c.smallestBudget == null ? 'none found' : `${mib(c.smallestBudget)} MiB`;
      return `| ${methodLabel(c.method)} | ${budget} | infeasible (smallest budget that works: ${smallest}) | | | | | | | | | | | |`;
    }
    const loaded = c.bytesLoaded === undefined ? '' : mib(c.bytesLoaded);
    const buffer = c.buffer === undefined ? '' : mib(c.buffer);
    return `| ${methodLabel(c.method)} | ${budget} | ${ms(c.meanLatencyMs)} | ${interval(c)} | ${mib(peak(c))} | ${kept(c)} | ${buffer} | ${c.footprint === undefined ? '' : mib(c.footprint)} | ${ms(c.ioStallMs)} | ${loaded} | ${readSpeed(c)} | ${c.preloaded ?? ''} | ${c.planningMs === undefined ? '' : ms(c.planningMs)} | ${outputs(c)} |`;
  });
  return [
    '| method | budget MiB | mean ms | 95% interval of the mean | peak − baseline MiB | within budget | buffer MiB | plan MiB | waiting for weights ms | read MiB per inference | read MB/s | weights preloaded | slicing + planning ms | outputs vs unbudgeted |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/** FlexNN's adaptation: per network, each phase of the run whose budget changed, measured on its own. */
export function adaptiveTable(cells: readonly BudgetCell[]): string {
  const rows = cells
    .filter((c) => c.part === 'adaptive')
    .flatMap((c) => {
      if (!c.feasible) return [`| ${c.network} | ${mib(c.budget as number)} | infeasible: ${c.reason ?? ''} | | | | | |`];
      const first = `| ${c.network} | ${mib(c.budget as number)} (first) | — | — | ${ms(c.meanLatencyMs)} | ${mib(peak(c))} | ${kept(c)} | ${outputs(c)} |`;
      const later = (c.adaptations ?? []).map(
        (a) =>
          `| ${c.network} | ${mib(a.budget)} | ${ms(a.adaptMs)} | ${ms(a.planMs)} | ${ms(a.meanLatencyMs)} | ${mib(a.peakRssDelta)} | ${a.withinBudget ? 'yes' : `**no** (+${mib(a.peakRssDelta - a.budget)} MiB)`} | ${a.matchesUnbudgeted === null ? '' : a.matchesUnbudgeted ? 'identical' : '**DIFFER**'} |`,
      );
      return [first, ...later];
    });
  return [
    '| network | budget MiB | adapted in ms | of which planning ms | mean ms | peak − baseline MiB (this phase) | within budget | outputs vs unbudgeted |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...rows,
  ].join('\n');
}

/** The ablation: per network and budget, FlexNN against itself without preloading and without planning. */
export function ablationTable(cells: readonly BudgetCell[], ablation: FlexnnBudgetConfig['ablation']): string {
  const cell = (network: string, budget: number, method: BudgetCell['method']): string => {
    const found = cells.find((c) => c.network === network && c.method === method && c.budget === Math.round(budget * MIB));
    if (found === undefined) return '';
    return found.feasible ? `${ms(found.meanLatencyMs)} ms, ${mib(peak(found))} MiB${found.withinBudget === false ? ' (**over budget**)' : ''}` : 'infeasible';
  };
  const rows = ablation.networks.flatMap((network) =>
    ablation.budgetsMiB.map(
      (budget) => `| ${network} | ${budget} | ${cell(network, budget, 'flexnn')} | ${cell(network, budget, 'flexnn-no-preload')} | ${cell(network, budget, 'flexnn-no-planning')} |`,
    ),
  );
  return ['| network | budget MiB | FlexNN | w/o preload (planned at each layer, loaded on demand) | w/o planning (Greedy by Size, loaded as it allows) |', '|---|---:|---|---|---|', ...rows].join(
    '\n',
  );
}

/**
 * FlexNN's headline computed the same way on each network: FlexNN at the smallest feasible
 * budget of the sweep against the default method, memory saved (1 − its peak over default's,
 * peaks over the baseline) and latency added (its mean over default's, minus 1); FlexNN's
 * own figure on its line. The source names a smartphone but no network, so every network
 * stands beside it; the claims table decides each.
 */
export function headlineTable(cells: readonly BudgetCell[], config: FlexnnBudgetConfig): string {
  const rows: string[] = [];
  for (const network of [...new Set(cells.map((c) => c.network))]) {
    const base = cells.find((c) => c.network === network && c.method === 'default' && c.feasible);
    const flexnn = cells.filter((c) => c.network === network && c.method === 'flexnn' && c.feasible && c.budget !== null).sort((a, b) => (a.budget as number) - (b.budget as number))[0];
    if (base === undefined || flexnn === undefined) continue;
    const saved = 1 - peak(flexnn) / peak(base);
    const added = (flexnn.meanLatencyMs as number) / (base.meanLatencyMs as number) - 1;
    rows.push(
      `| ${network} | ${mib(peak(base))} | ${ms(base.meanLatencyMs)} | ${mib(flexnn.budget as number)} | ${mib(peak(flexnn))} | ${ms(flexnn.meanLatencyMs)} | ${percent(saved)} | ${signed(added)} |`,
    );
  }
  const named = config.paper.network === undefined ? 'no network named' : config.paper.network;
  return [
    '| network | default: peak − baseline MiB | default: mean ms | FlexNN: smallest budget MiB | FlexNN: peak − baseline MiB | FlexNN: mean ms | memory saved | latency added |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| FlexNN's paper (${config.paper.device}; ${named}) | | | | | | ${percent(config.paper.memorySaved)} | ${signed(config.paper.latencyAdded)} |`,
  ].join('\n');
}

/** FlexNN's offline planning on this machine, per network: slicing for the budget and planning, at the smallest and the largest budget swept. */
export function planningTable(cells: readonly BudgetCell[]): string {
  const rows = [...new Set(cells.map((c) => c.network))].flatMap((network) => {
    const swept = cells.filter((c) => c.network === network && c.method === 'flexnn' && c.feasible && c.planningMs !== undefined).sort((a, b) => (a.budget as number) - (b.budget as number));
    if (swept.length === 0) return [];
    const [first, last] = [swept[0], swept[swept.length - 1]];
    const times = swept.map((c) => c.planningMs as number);
    return [`| ${network} | ${ms(first.planningMs)} at ${mib(first.budget as number)} MiB | ${ms(last.planningMs)} at ${mib(last.budget as number)} MiB | ${ms(Math.max(...times))} |`];
  });
  return ['| network | at the smallest budget | at the largest budget | most, any budget |', '|---|---:|---:|---:|', ...rows].join('\n');
}

/** The speed this machine's disk served the unthrottled on-demand loads at (their reads do not overlap compute): the median over networks, MB/s. */
function ownReadSpeed(cells: readonly BudgetCell[]): number | undefined {
  const speeds = cells
    .filter((c) => c.method === 'on-demand' && c.reads?.bytesPerSecond === null && c.readBytesPerSecond != null)
    .map((c) => c.readBytesPerSecond as number)
    .sort((a, b) => a - b);
  return speeds.length === 0 ? undefined : speeds[Math.floor(speeds.length / 2)] / 1e6;
}

function readsSentence(cells: readonly BudgetCell[], config: FlexnnBudgetConfig): string {
  const streamed = cells.filter((c) => c.reads !== undefined);
  if (streamed.length === 0)
    return 'The weights file sat in the page cache (written just before the run), so loading cost memory copies, not storage reads (a run from before reads went to the storage).';
  const direct = streamed.every((c) => c.reads?.direct);
  const own = ownReadSpeed(cells);
  const storages = config.storage
    .map((s) =>
      s.bandwidth === undefined
        ? `${s.label}, at its own speed${own === undefined ? '' : ` (${own.toFixed(0)} MB/s as the on-demand loads measured it)`}`
        : `${s.label}: reads held to ${s.bandwidth}/s (${s.source})`,
    )
    .join('; ');
  return `${direct ? 'Weights are read with O_DIRECT, from the storage and not the page cache' : '**Some reads went through the page cache: this file system takes no O_DIRECT**'}; every streamed method ran from each storage: ${storages}.`;
}

/** The networks timed with runs of their own, as a parenthesis: ` (ViT: 3 after 1 warm-up)`. */
function ownRuns(networks: FlexnnBudgetConfig['networks'] | undefined): string {
  const own = (networks ?? []).filter((n) => n.repetitions !== undefined || n.warmup !== undefined);
  return own.length === 0 ? '' : ` (${own.map((n) => `${n.label}: ${n.repetitions ?? 'as the rest'} after ${n.warmup ?? 'as many warm-ups as the rest'}`).join('; ')})`;
}

async function reportFlexnnBudget(dir: string, info: Record<string, unknown>): Promise<{ markdown: string; files: string[] }> {
  const stored = info.config as FlexnnBudgetConfig;
  // Runs from before storages and the minimum were stated read as one storage, swept as listed.
  const config: FlexnnBudgetConfig = { ...stored, storage: stored.storage ?? [{ label: "this machine's disk" }], fromMinimum: stored.fromMinimum ?? false };
  const quick = info.quick === true;
  const cells = await new ResultStore(dir).readCells<BudgetCell>();
  if (cells.length === 0) throw new Error(`${dir}: the run holds no cells yet.`);
  const out = join(dir, 'report');
  const files: string[] = [];
  const storages = config.storage.map((s, k) => ({ label: s.label, cells: fromStorage(cells, s.label, k === 0), file: k === 0 ? 'flexnn-budget-latency' : `flexnn-budget-latency-${k + 1}` }));
  for (const storage of storages) {
    const chart = join(out, storage.file);
    await renderChart(
      budgetLatencyChartSpec(
        storage.cells.filter((c) => c.part !== 'adaptive'),
        { title: `Latency against measured peak memory (FlexNN, Figure 10): ${storage.label}` },
      ),
      chart,
    );
    files.push(`${chart}.svg`, `${chart}.png`, `${chart}.pdf`, `${chart}.vl.json`);
  }
  const networks = [...new Set(cells.map((c) => c.network))];
  const machine = info.machine as { cpu?: string; cores?: number } | undefined;
  const runs = quick ? config.quick : config;
  const ablation = quick ? config.quick.ablation : config.ablation;
  const adaptive = quick ? config.quick.adaptive : config.adaptive;
  const differ = cells.filter((c) => c.matchesUnbudgeted === false);
  const judged = cells.filter((c) => c.withinBudget !== undefined);
  const over = judged.filter((c) => c.withinBudget === false);
  const several = storages.length > 1;
  const claimSections = storages.flatMap((storage) => {
    const claims = networks.flatMap((network) =>
      flexnnClaims(
        network,
        storage.cells.filter((c) => c.network === network),
        config,
        ablation.networks.includes(network) ? ablation.budgetsMiB : [],
        adaptive?.paper,
      ),
    );
    const reversals = claims.flatMap((c) => (c.reversal === undefined ? [] : [`- ${c.reversal}`]));
    return [
      ...(several ? [`### From ${storage.label}`, ''] : []),
      claimsTable(claims),
      '',
      reversals.length === 0 ? 'No claim comes out the other way round here.' : `What does not reproduce here (${reversals.length} of ${claims.length} claims):`,
      ...(reversals.length === 0 ? [] : ['', ...reversals]),
      '',
    ];
  });
  const markdown = `${[
    `# ${config.title}${quick ? ' (quick variant)' : ''}`,
    '',
    `Mean of ${runs.repetitions} timed inferences after ${runs.warmup} warm-ups${ownRuns(quick ? config.quick.networks : config.networks)}, seed ${config.seed}, fp32, every cell in a measured process of its own (peak RSS over its baseline, read once the job has been checked and run dry and the collector is done; the budgeted executor's start-up, its loader thread and a warm-up network, comes before it). ` +
      `A budget is the whole run's: the plan's buffer is what is left after the graph's inputs and outputs and the runtime's reserve of ${mib(PROCESS_RESERVE_BYTES)} MiB (its compilers' working memory, measured), so that the measured peak over the baseline stays within the budget; "within budget" says whether it did. ` +
      `${config.fromMinimum ? "Each network's sweep starts at its smallest feasible budget, found by FlexNN's planner for the whole run (memplan plan --find-min-budget), then goes up through FlexNN's budgets; those below the smallest are infeasible. " : ''}` +
      `${readsSentence(cells, config)} Machine: ${machine?.cpu ?? 'unknown'}, ${machine?.cores ?? '?'} cores.`,
    '',
    differ.length === 0 ? 'Every measured output is bit-identical to the unbudgeted run (every weight resident).' : `**${differ.length} cell(s) differ from the unbudgeted run.**`,
    '',
    judged.length === 0
      ? 'No cell says whether it kept its budget (a run from before that was measured).'
      : over.length === 0
        ? `Every budgeted cell (${judged.length}) kept its budget as measured.`
        : `**${over.length} of ${judged.length} budgeted cells went over their budget as measured**: ${over.map((c) => `${c.network} ${methodLabel(c.method)} at ${mib(c.budget as number)} MiB${several && c.storage ? ` (${c.storage})` : ''}`).join(', ')}.`,
    '',
    ...storages.flatMap((s) => [`![Latency against measured peak: ${s.label}](${s.file}.png)`, '']),
    "## FlexNN's claims, decided on our numbers",
    '',
    `Timings are decided on 95% intervals of ratios of means (seeded bootstrap); peaks, single measurements, are told apart only beyond ${mib(PEAK_NOISE_BYTES)} MiB. A cost counts as small below ${SMALL_COST * 100}% and a saving as large above ${LARGE_SAVING * 100}%; "holds" needs our figure within ${TOLERANCE.percentagePoints} percentage points of FlexNN's or better.`,
    '',
    ...claimSections,
    ...networks.flatMap((network) => [
      `## ${network}`,
      '',
      ...storages
        // A storage that ran none of this network's streamed methods has nothing of it to show.
        .filter((s) => s.cells.some((c) => c.network === network && c.method !== 'default'))
        .flatMap((s) => [...(several ? [`### From ${s.label}`, ''] : []), networkTable(s.cells.filter((c) => c.network === network && c.part !== 'adaptive')), '']),
    ]),
    '## Ablation',
    '',
    ...storages.flatMap((s) => [...(several ? [`### From ${s.label}`, ''] : []), ablationTable(s.cells, ablation), '']),
    ...(cells.some((c) => c.part === 'adaptive')
      ? [
          '## Adapting the budget while it runs',
          '',
          `FlexNN changes the budget between inferences (${(adaptive?.budgetsMiB ?? []).join(' → ')} MiB here). At each change the running network is let go of, the network sliced again for the new budget, planned and verified in the running process, and prepared in a buffer of the new size: "adapted in" is all of that; each phase's peak is read from the change on, against the run's baseline.`,
          '',
          ...storages.flatMap((s) => [...(several ? [`### From ${s.label}`, ''] : []), adaptiveTable(s.cells), '']),
        ]
      : []),
    '## Planning cost',
    '',
    "Milliseconds to slice each network for its budget and plan it with FlexNN's planner, on this machine (the verifier's check not included). FlexNN's paper gives no figure to set beside these: the source lists what its offline stage costs (storing the transformed weights, profiling, slicing, planning) without a time.",
    '',
    planningTable(storages[0].cells),
    '',
    "## Against FlexNN's headline",
    '',
    ...storages.flatMap((s) => [...(several ? [`### From ${s.label}`, ''] : []), headlineTable(s.cells, config), '']),
  ].join('\n')}`;
  await writeFileAtomic(join(out, 'flexnn-budget.md'), markdown);
  files.push(join(out, 'flexnn-budget.md'));
  return { markdown, files };
}

registerStudyReport('flexnn-budget', reportFlexnnBudget);
