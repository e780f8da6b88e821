import { join } from 'node:path';
import { ResultStore } from '../../experiments/result-store.ts';
import type { GroupsCell } from '../../experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../experiments/studies/parallel-groups-config.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { groupsSweepChartSpec } from '../charts/groups-sweep-chart.ts';
import { renderChart } from '../charts/render.ts';
import { networkFindings } from '../groups-findings.ts';
import { groupsCsv, networkMarkdown, overviewMarkdown, sweepCells, sweepMarkdown, tableCell, webgpuMarkdown } from '../groups-table.ts';
import { registerStudyReport } from '../study-reports.ts';

/**
 * The report of a parallel-groups run (results/parallel-groups/<run>/report/): the thesis'
 * table on our machine, network by network beside the thesis' published figures (as ratios
 * to each side's base row), a sentence per finding, the sweep of the number of groups
 * (table and chart), the WebGPU look, and every cell as CSV.
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
    `${info.quick === true ? '**Quick variant** (small inputs, few repetitions): a look, not a measurement. ' : ''}` +
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
  sections.push('', '## The table, ours (median ms · planned MiB)', '', overviewMarkdown(config, cells));
  for (const network of config.networks) {
    if (!cells.some((c) => c.network === network.label && c.part === 'table')) continue;
    const findings = networkFindings(config, cells, network.label);
    sections.push('', `## ${network.label} (${tableCell(cells, network.label, config.rows[0].id)?.source ?? network.source})`, '', networkMarkdown(config, cells, network.label));
    if (findings.length > 0) sections.push('', ...findings.map((f) => `- ${f}`));
  }

  const points = sweepCells(config, cells);
  if (points.length > 0) {
    const base = join(out, 'parallel-groups-sweep');
    const reference = tableCell(cells, config.sweep.network, 'minimization');
    await renderChart(groupsSweepChartSpec(points, reference, { title: `${config.sweep.network}: memory and latency against groups per layer` }), base);
    files.push(`${base}.svg`, `${base}.png`, `${base}.vl.json`);
    sections.push('', `## Groups per layer on ${config.sweep.network}`, '', sweepMarkdown(config, cells), '', '![groups sweep](parallel-groups-sweep.png)');
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
