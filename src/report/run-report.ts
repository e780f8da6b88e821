import { join } from 'node:path';
import { type Experiment } from '../experiments/config.ts';
import { ExperimentError } from '../experiments/experiment-error.ts';
import type { CellResult } from '../experiments/result.ts';
import { ResultStore } from '../experiments/result-store.ts';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { backendLabel } from './backend-label.ts';
import { footprintChartSpec } from './charts/footprint-chart.ts';
import { latencyChartSpec } from './charts/latency-chart.ts';
import { memoryChartSpec } from './charts/memory-chart.ts';
import { evaluateClaims } from './claims.ts';
import { qualityChartSpec } from './charts/quality-chart.ts';
import { scalingChartSpec } from './charts/scaling-chart.ts';
import { memoryCsv, memoryMarkdown, measuredCells, savingChecks, savingChecksMarkdown } from './memory-table.ts';
import { buildPaperTable, type PaperTable } from './paper-table.ts';
import { tableToCsv, tableToLatex, tableToMarkdown } from './table-formats.ts';

/** What a run folder holds, read back: its experiment (from run.json) and its cells. */
export interface LoadedRun {
  readonly experiment: Experiment;
  readonly results: readonly CellResult[];
}

export async function loadRun(dir: string): Promise<LoadedRun> {
  const store = new ResultStore(dir);
  const info = await store.readRunInfo<{ config?: Experiment }>();
  // A hand-edited or truncated run.json: say so rather than fail deep inside a table.
  const config = info.config;
  if (config === null || typeof config !== 'object' || typeof config.name !== 'string' || typeof config.report !== 'object' || config.report === null) {
    throw new ExperimentError(`${join(dir, 'run.json')}: holds no experiment configuration (config); the run folder is damaged.`);
  }
  // A cell twice (two runs wrote into the folder at once) is refused: a table would take one of them silently.
  return { experiment: config, results: await store.readEachOnce() };
}

export function runTable(run: LoadedRun): PaperTable {
  const { experiment } = run;
  return buildPaperTable(run.results, {
    title: experiment.title,
    approach: experiment.approach,
    report: experiment.report,
  });
}

/** Writes `<base>.md`, `.csv` and `.tex` of a table; returns the Markdown. */
export async function writeTable(table: PaperTable, base: string): Promise<string> {
  const markdown = tableToMarkdown(table);
  await writeFileAtomic(`${base}.md`, markdown);
  await writeFileAtomic(`${base}.csv`, tableToCsv(table));
  await writeFileAtomic(`${base}.tex`, tableToLatex(table));
  return markdown;
}

/** `memplan report <run-dir>`: the table in three formats and the experiment's charts, in `<run-dir>/report/`. */
export async function reportRun(dir: string): Promise<{ markdown: string; files: string[] }> {
  const run = await loadRun(dir);
  // A shard whose every cell's source was absent on its machine, or a run killed before its
  // first cell: no table or chart to draw, and one sentence, not a chart's stack trace.
  if (run.results.length === 0) {
    throw new ExperimentError(`${dir} holds no finished cell (every source absent here, or the run stopped before its first cell); nothing to report.`);
  }
  const out = join(dir, 'report');
  const name = run.experiment.name;
  const markdown = await writeTable(runTable(run), join(out, name));
  const files = [`${name}.md`, `${name}.csv`, `${name}.tex`].map((f) => join(out, f));
  // vega, vega-lite and resvg load once the run has been read and its table written.
  const { renderChart } = await import('./charts/render.ts');
  for (const chart of run.experiment.report.charts ?? ['footprint']) {
    const base = join(out, `${name}-${chart}`);
    if (chart === 'footprint') {
      await renderChart(footprintChartSpec(run.results, { title: `${run.experiment.title}: footprint over the lower bound` }), base);
    } else if (chart === 'memory') {
      await renderChart(memoryChartSpec(run.results, { title: `${run.experiment.title}: where memory goes` }), base);
    } else if (chart === 'latency') {
      await renderChart(latencyChartSpec(run.results, { title: `${run.experiment.title}: latency against planned memory` }), base);
    } else if (chart === 'quality') {
      // Runs written before the time limit existed have none in their run.json: no rule then.
      const limit = run.experiment.timeLimitSeconds;
      const options = { title: `${run.experiment.title}: quality against planning time`, approach: run.experiment.approach };
      await renderChart(qualityChartSpec(run.results, limit === undefined ? options : { ...options, timeLimitMs: limit * 1000 }), base);
    } else {
      const points = run.results.map((r) => ({ planner: r.planner, records: r.records, medianMs: r.timeMs.median, instance: r.modelLabel }));
      await renderChart(scalingChartSpec(points, { title: `${run.experiment.title}` }), base);
    }
    files.push(`${base}.svg`, `${base}.png`, `${base}.pdf`, `${base}.vl.json`);
  }
  let report = markdown;
  if (measuredCells(run.results).length > 0) {
    const text = `${memoryMarkdown(run.results)}\n${savingChecksMarkdown(savingChecks(run.results))}`;
    await writeFileAtomic(join(out, `${name}-memory.md`), text);
    await writeFileAtomic(join(out, `${name}-memory.csv`), memoryCsv(run.results));
    files.push(join(out, `${name}-memory.md`), join(out, `${name}-memory.csv`));
    report = `${report}\n${text}`;
  }
  const latency = run.results.filter((r) => r.latencyMs !== undefined);
  if (latency.length > 0) {
    // Claim 7 per backend (a CPU and a software adapter say different things); not at all
    // where the run holds no pair it decides on (naive and Greedy by Size).
    const labels = [...new Set(latency.map(backendLabel))];
    const claims = labels.flatMap((label) => {
      const claim = evaluateClaims({ sharedObjects: [], offsets: [], latency: latency.filter((r) => backendLabel(r) === label) }).find((c) => c.id === 7)!;
      return claim.verdict === 'pending' ? [] : [`Claim 7 (${claim.claim})${labels.length > 1 ? `, ${label}` : ''}: **${claim.verdict}**. ${claim.evidence}\n`];
    });
    const devices = [...new Set(latency.map((r) => JSON.stringify(r.device ?? {})))].map(
      (d) =>
        `- ${Object.entries(JSON.parse(d) as Record<string, unknown>)
          .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join(', ')}`,
    );
    const text = `Devices:\n\n${devices.join('\n')}\n\n${latencyTable(latency)}\n${claims.join('')}`;
    await writeFileAtomic(join(out, `${name}-latency.md`), text);
    files.push(join(out, `${name}-latency.md`));
    return { markdown: `${report}\n${text}`, files };
  }
  return { markdown: report, files };
}

/** Latency per network and planner, with the peer runtime's where measured. */
function latencyTable(results: readonly CellResult[]): string {
  // The device's own clock (GPU timestamps) gets its columns only where some cell has it;
  // the backend, where cells ran on several or on a software adapter.
  const withDevice = results.some((r) => r.deviceMs !== undefined);
  const withBackend = new Set(results.map(backendLabel)).size > 1 || results.some((r) => backendLabel(r) !== r.backend);
  const rows = results.map((r) => {
    const l = r.latencyMs!;
    const peer = r.peer ? `${r.peer.latencyMs.median.toFixed(2)} | ${r.peer.ratio.toFixed(2)}x | ${r.peer.relativeError.toExponential(1)}` : '— | — | —';
    const device = !withDevice ? '' : r.deviceMs ? ` ${r.deviceMs.median.toFixed(2)} | [${r.deviceMs.ci95[0].toFixed(2)}, ${r.deviceMs.ci95[1].toFixed(2)}] |` : ' — | — |';
    return `| ${r.modelLabel} | ${r.plannerTitle} |${withBackend ? ` ${backendLabel(r)} |` : ''} ${(r.footprint / 2 ** 20).toFixed(3)} | ${l.median.toFixed(2)} | [${l.ci95[0].toFixed(2)}, ${l.ci95[1].toFixed(2)}] |${device} ${r.matchesNaive === null ? 'not checked' : r.matchesNaive ? 'yes' : 'NO'} | ${peer} |`;
  });
  return [
    `| network | planner |${withBackend ? ' backend |' : ''} MiB | median ms | 95% CI |${withDevice ? ' device ms | device 95% CI |' : ''} = naive | peer ms | ours/peer | rel. error |`,
    `|---|---|${withBackend ? '---|' : ''}---:|---:|---|${withDevice ? '---:|---|' : ''}---|---:|---:|---:|`,
    ...rows,
  ].join('\n');
}
