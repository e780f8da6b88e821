import { join } from 'node:path';
import { ResultStore } from '../../experiments/result-store.ts';
import type { GroupsCell } from '../../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../experiments/studies/parallel-groups-config.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { groupsSweepChartSpec } from '../charts/groups-sweep-chart.ts';
import { renderChart } from '../charts/render.ts';
import { comparisonMarkdown, thesisOverviewMarkdown } from '../groups-comparison.ts';
import { findingsMarkdown, networkMeasuredFinding, ROWS, thesisFindings } from '../groups-findings.ts';
import { sweepCells, sweepFinding, sweepMarkdown, sweptNetworks } from '../groups-sweep.ts';
import { groupsCsv, mib, networkMarkdown, overviewMarkdown, tableCell, thesisOf, webgpuMarkdown } from '../groups-table.ts';
import { SAME_MEMORY } from '../groups-verdicts.ts';
import { TOLERANCE } from '../claims.ts';
import { registerStudyReport } from '../study-reports.ts';

/**
 * The report of a parallel-groups run (results/parallel-groups/<run>/report/): the thesis'
 * table as published and ours in its layout, the thesis' findings decided on our numbers
 * (claims.ts's vocabulary), every network's cells beside the thesis' with a verdict each,
 * the sweep of the number of groups on every network (table, chart, a finding each), the
 * WebGPU look, and every cell as CSV.
 */
async function reportParallelGroups(dir: string, info: Record<string, unknown>): Promise<{ markdown: string; files: string[] }> {
  const config = info.config as ParallelGroupsConfig;
  const cells = await new ResultStore(dir).readCells<GroupsCell>();
  if (cells.length === 0) throw new Error(`${dir}: the run holds no parallel-groups cells yet.`);
  const out = join(dir, 'report');
  const files: string[] = [];
  const measured = cells.filter((c) => c.report !== undefined);
  const cpu = measured.find((c) => c.backend === 'cpu-parallel')?.report;
  const workers = cpu?.parallel?.workers;
  const machine = info.machine as { cpu?: string; cores?: number } | undefined;
  const repetitions = measured[0]?.report?.latencyMs.runs;
  const failed = cells.filter((c) => c.error !== undefined);
  const differ = measured.filter((c) => c.report!.matchesNaive === false);

  const sections: string[] = [
    `# ${config.title}`,
    '',
    `${info.quick === true ? '**Quick variant** (small inputs, few repetitions): a look, not a measurement; its verdicts say nothing of the thesis. ' : ''}` +
      `Machine: ${machine?.cpu ?? 'unknown'}, ${machine?.cores ?? '?'} cores; parallel rows on ${workers ?? '?'} worker threads. ` +
      `${repetitions ?? '?'} timed inferences per cell, each cell in a process of its own (memory: the peak over that process's baseline); ` +
      `every cell's outputs compared bit for bit with the network's naive run, one operator at a time: ${differ.length === 0 ? 'all identical' : `**${differ.length} differ**`}. ` +
      `Planned memory is the arena of the planned intermediates (MiB); the thesis gives ms and MB on ${config.thesis.device} (${config.thesis.citation}).`,
  ];
  if (cells.some((c) => !c.compiled)) {
    sections.push(
      '',
      '**The measured processes ran TypeScript through tsx** (src/ newer than dist/): every worker thread then holds tsx and the compiled modules, which the measured peaks of the parallel rows count. Run `npm run build` before a measurement.',
    );
  }
  if (failed.length > 0) sections.push('', `**${failed.length} cell(s) failed**: ${failed.map((c) => `${c.network} ${c.row ?? c.schedule} on ${c.backend}: ${c.error}`).join('; ')}`);
  const published = thesisOverviewMarkdown(config);
  if (published !== '') sections.push('', "## The thesis' table, as published (ms: the mean of its runs ± two standard deviations · MB)", '', published);
  sections.push('', '## The table, ours (ms: the median and its 95% interval · planned MiB)', '', overviewMarkdown(config, cells));

  const findings = thesisFindings(config, cells);
  if (findings.length > 0) {
    sections.push('', "## The thesis' findings on our numbers", '', HOW_DECIDED, '', memoryBasis(config, cells), '', findingsMarkdown(findings));
  }
  for (const network of config.networks) {
    if (!cells.some((c) => c.network === network.label && c.part === 'table')) continue;
    sections.push('', `## ${network.label} (${tableCell(cells, network.label, config.rows[0].id)?.source ?? network.source})`);
    if (network.thesis !== undefined && config.thesis.values[network.thesis] !== undefined) {
      sections.push('', `Beside the thesis (${network.thesis}), every ratio to its side's ${config.rows[0].label} row:`, '', comparisonMarkdown(config, cells, network.label), '', 'As it ran:');
    }
    sections.push('', networkMarkdown(config, cells, network.label));
    const measuredLine = networkMeasuredFinding(cells, network.label);
    if (measuredLine !== undefined) sections.push('', `- ${measuredLine}`);
  }

  const swept = sweptNetworks(config);
  const series = swept.map((network) => ({ network, points: sweepCells(config, cells, network), reference: tableCell(cells, network, ROWS.minimization) }));
  if (series.some((s) => s.points.some((p) => p.cell.report !== undefined))) {
    const base = join(out, 'parallel-groups-sweep');
    await renderChart(groupsSweepChartSpec(series, { title: 'Memory and latency against groups per layer' }), base);
    files.push(`${base}.svg`, `${base}.png`, `${base}.pdf`, `${base}.vl.json`);
    const sweepFindings = swept.flatMap((network) => sweepFinding(config, cells, network) ?? []);
    sections.push('', `## Groups per layer (${config.sweep.groups.join(', ')})`, '', sweepMarkdown(config, cells), '', '![groups sweep](parallel-groups-sweep.png)');
    if (sweepFindings.length > 0) sections.push('', findingsMarkdown(sweepFindings));
  }

  const gpu = cells.filter((c) => c.part === 'webgpu');
  if (gpu.length > 0) {
    const device = gpu.find((c) => c.report)?.report?.device;
    const adapter = device ? String(device.description ?? device.device ?? device.backend) : 'no adapter';
    const software = device?.software === true ? ' (a software adapter: the CPU runs every dispatch)' : '';
    sections.push(
      '',
      `## WebGPU: a step's dispatches in one compute pass (${adapter}${software})`,
      '',
      "Every inference is one compute pass of one command buffer, the dispatches in the planned order; under a schedule that order is step by step and a shared-objects plan made for the steps gives the tensors of a step buffers of their own, so nothing but the data a dispatch reads orders it after another of its step. WebGPU has no other way to say that dispatches may overlap: whether they do is the driver's. What this adapter made of it:",
      '',
      webgpuMarkdown(cells),
      ...webgpuFindings(gpu),
    );
  }
  const markdown = `${sections.join('\n')}\n`;
  await writeFileAtomic(join(out, 'parallel-groups.md'), markdown);
  await writeFileAtomic(join(out, 'parallel-groups.csv'), groupsCsv(cells));
  files.push(join(out, 'parallel-groups.md'), join(out, 'parallel-groups.csv'));
  return { markdown, files };
}

/** How the findings are decided (groups-verdicts.ts), said once. */
const HOW_DECIDED =
  "Their phone GPU and our CPU share no scale, so only the relations between rows of one network are compared. Times are intervals: the thesis' mean ± 2σ (it gives no run count, so the spread of its runs is the only interval it has), our 95% interval of the median (our mean ± 2σ is printed beside the thesis' for reading, not for deciding: a mean follows the odd slow run); " +
  "a ratio's interval runs from the lowest to the highest quotient of the two. Where the thesis' intervals are apart it shows a difference: ours **holds** when it goes the same way with a ratio interval meeting the thesis', *holds in direction* when it goes the same way further or less far, " +
  "**does not hold** when it goes the other way, and is *inconclusive* when our intervals overlap. Where the thesis' intervals overlap it shows no difference: ours holds when our whole ratio interval lies within the thesis', does not hold when the two ratio intervals are apart, and is inconclusive between. " +
  `Memory ratios are exact on both sides: they hold within ${TOLERANCE.percentagePoints} percentage points of each other, in direction when both are less, the same (ours within ${SAME_MEMORY * 100}%) or more. ` +
  "A finding of two parts takes the weaker verdict; *pending*: a figure is missing. The words are those of the paper's claims (results/paper/claims.md).";

/**
 * Which of our memory figures the thesis' MB are compared with. The thesis does not say
 * what it counts; where every minimization figure of it exceeds the network's weights
 * (ours, fp32), it counts at least the weights, and the whole the network holds is ours to compare.
 */
function memoryBasis(config: ParallelGroupsConfig, cells: readonly GroupsCell[]): string {
  const pairs = config.networks.flatMap((n) => {
    const mb = thesisOf(config, n.label, ROWS.minimization)?.mb;
    const weights = tableCell(cells, n.label, ROWS.minimization)?.report?.memory.weights;
    return mb === undefined || weights === undefined ? [] : [{ network: n.label, mb, weights }];
  });
  const compare = 'its MB are compared with all our network holds: weights, the arena, graph I/O and kernels\' scratch ("held"), the arenas\' ratio beside.';
  if (pairs.length === 0) return `The thesis does not say what its MB count; ${compare}`;
  // MB may be 10^6 or 2^20 bytes: the comparison holds under the smaller reading.
  const exceed = pairs.every((p) => p.mb * 1e6 > p.weights);
  const list = pairs.map((p) => `${p.network} ${p.mb} MB against ${mib(p.weights)} MiB of weights`).join(', ');
  return exceed
    ? `The thesis does not say what its MB count; its memory-minimization figure exceeds our fp32 weights on every network (${list}), so it appears to count the weights too, and ${compare}`
    : `The thesis does not say what its MB count, and not every memory-minimization figure of it exceeds our fp32 weights (${list}); ${compare}`;
}

/** Per network: each layered schedule's device time over the sequential one's. */
function webgpuFindings(gpu: readonly GroupsCell[]): string[] {
  const lines: string[] = [];
  for (const network of [...new Set(gpu.map((c) => c.network))]) {
    const time = (c: GroupsCell | undefined): number | undefined => c?.report?.deviceMs?.median ?? c?.report?.latencyMs.median;
    const sequential = time(gpu.find((c) => c.network === network && c.schedule === 'sequential'));
    if (sequential === undefined) continue;
    const others = gpu.filter((c) => c.network === network && c.schedule !== 'sequential' && time(c) !== undefined);
    if (others.length === 0) continue;
    const ratios = others.map((c) => `${c.schedule} ${(time(c)! / sequential).toFixed(2)}x`).join(', ');
    const gained = others.some((c) => time(c)! < 0.95 * sequential);
    lines.push(
      `- ${network}: device time against the sequential order: ${ratios}; ${gained ? 'a layered schedule ran faster here' : "no layered schedule ran faster here (no sign of the driver overlapping a step's dispatches)"}.`,
    );
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

registerStudyReport('parallel-groups', reportParallelGroups);
