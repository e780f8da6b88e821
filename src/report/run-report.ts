import { join } from 'node:path';
import type { Experiment } from '../experiments/config.ts';
import type { CellResult } from '../experiments/result.ts';
import { ResultStore } from '../experiments/result-store.ts';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { footprintChartSpec } from './charts/footprint-chart.ts';
import { renderChart } from './charts/render.ts';
import { scalingChartSpec } from './charts/scaling-chart.ts';
import { buildPaperTable, type PaperTable } from './paper-table.ts';
import { tableToCsv, tableToLatex, tableToMarkdown } from './table-formats.ts';

/** What a run folder holds, read back: its experiment (from run.json) and its cells. */
export interface LoadedRun {
  readonly experiment: Experiment;
  readonly results: readonly CellResult[];
}

export async function loadRun(dir: string): Promise<LoadedRun> {
  const store = new ResultStore(dir);
  const info = await store.readRunInfo<{ config: Experiment }>();
  return { experiment: info.config, results: await store.read() };
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
  const out = join(dir, 'report');
  const name = run.experiment.name;
  const markdown = await writeTable(runTable(run), join(out, name));
  const files = [`${name}.md`, `${name}.csv`, `${name}.tex`].map((f) => join(out, f));
  for (const chart of run.experiment.report.charts ?? ['footprint']) {
    const base = join(out, `${name}-${chart}`);
    if (chart === 'footprint') {
      await renderChart(footprintChartSpec(run.results, { title: `${run.experiment.title}: footprint over the lower bound` }), base);
    } else {
      const points = run.results.map((r) => ({ planner: r.planner, records: r.records, medianMs: r.timeMs.median, instance: r.modelLabel }));
      await renderChart(scalingChartSpec(points, { title: `${run.experiment.title}` }), base);
    }
    files.push(`${base}.svg`, `${base}.png`, `${base}.vl.json`);
  }
  return { markdown, files };
}
