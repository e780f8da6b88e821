import { join } from 'node:path';
import { ExperimentError } from '../../experiments/experiment-error.ts';
import { ResultStore } from '../../experiments/result-store.ts';
import type { GemmCell, GemmGrid, GemmPeerCell, GemmTilingConfig } from '../../experiments/studies/gemm-tiling.ts';
import { formatByteSize } from '../../io/byte-size.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { gemmChartSpec } from '../charts/gemm-chart.ts';
import { renderChart } from '../charts/render.ts';
import { registerStudyReport } from '../study-reports.ts';
import { gemmClaims } from './gemm-claims.ts';
import { balanceNote, deviceNote, infeasibleNote, residencyNote, storageNote } from './gemm-notes.ts';
import { claimsTable, figureTable, gridTable } from './gemm-tables.ts';
import { MIN_RUNS, SAME_ORDER } from './gemm-verdicts.ts';

/** The grid a run ran: the quick one when its cells are of the quick n. */
function gridOf(config: GemmTilingConfig, cells: readonly GemmCell[]): GemmGrid {
  const n = cells[0].runs[0].n;
  if (n === config.n) return config;
  if (config.quick?.n === n) return config.quick;
  throw new ExperimentError(`the run's cells are of n = ${n}, which neither its grid (n = ${config.n}) nor its quick grid holds.`);
}

async function reportGemmTiling(dir: string, info: Record<string, unknown>): Promise<{ markdown: string; files: string[] }> {
  const config = info.config as GemmTilingConfig;
  const all = await new ResultStore(dir).readCells<GemmCell | GemmPeerCell>();
  if (all.some((c) => 'figure' in c) || !Array.isArray(config.storage)) {
    throw new ExperimentError(`${dir}: this run was made by the study's earlier format (one sweep per figure, no storage, no intervals); run experiments/gemm-tiling.json again to report it.`);
  }
  const cells = all.filter((c): c is GemmCell => 'tile' in c);
  const peer = all.find((c): c is GemmPeerCell => 'peer' in c)?.peer;
  if (cells.length === 0) throw new ExperimentError(`${dir}: the run holds no GEMM cells yet.`);
  const grid = gridOf(config, cells);
  const label = (id: string): string => config.storage.find((s) => s.id === id)?.label ?? id;
  const out = join(dir, 'report');
  const files: string[] = [];
  const sections: string[] = [];
  for (const storage of config.storage) {
    if (!cells.some((c) => c.storage === storage.id)) continue;
    const part = [`## On ${storage.label}`, ''];
    for (const figure of [2, 3] as const) {
      const base = join(out, `gemm-figure${figure}-${storage.id}`);
      const title =
        figure === 2
          ? `Figure 2 analogue: tile sizes at ${formatByteSize(grid.figure2Budget)} (n = ${grid.n}, ${storage.id})`
          : `Figure 3 analogue: budgets at tile ${grid.figure3Tile} (n = ${grid.n}, ${storage.id})`;
      await renderChart(gemmChartSpec(cells, grid, storage.id, figure, { title }), base);
      files.push(`${base}.svg`, `${base}.png`, `${base}.pdf`, `${base}.vl.json`);
      part.push(
        figure === 2
          ? `### Figure 2 analogue: tile sizes at ${formatByteSize(grid.figure2Budget)} (the tile equal to n is the untiled GEMM)`
          : `### Figure 3 analogue: budgets at tile ${grid.figure3Tile}`,
        '',
        figureTable(cells, storage.id, grid, figure),
        '',
        `![Figure ${figure} analogue, ${storage.id}](gemm-figure${figure}-${storage.id}.png)`,
        '',
      );
    }
    part.push('### The whole grid (median wall time · median peak over the baseline, MiB · MiB read)', '');
    for (const scheduler of config.schedulers) part.push(`${scheduler}:`, '', gridTable(cells, storage.id, scheduler, grid), '');
    const residency = residencyNote(cells, grid, storage.id);
    if (residency) part.push(residency, '');
    sections.push(part.join('\n'));
  }
  const claims = gemmClaims(config, cells, grid);
  const runs = Math.min(...cells.map((c) => c.runs.length));
  const machine = info.machine as { cpu?: string; cores?: number } | undefined;
  const untiled = cells.filter((c) => c.tile === grid.n && c.budget === grid.figure2Budget);
  const kernel = untiled.length > 0 ? Math.max(...untiled.map((c) => (2 * grid.n ** 3) / c.computeMs / 1e6)) : undefined;
  const first = cells[0].runs[0];
  const markdown = `${[
    `# ${config.title}`,
    '',
    `n = ${grid.n}, float32, seed ${first.seed}; ${first.directIo ? 'reads and writes with O_DIRECT (the storage, not the page cache)' : 'reads and writes through the page cache'}; ${runs === grid.repetitions ? `${runs}` : `at least ${runs}`} run(s) per cell, each in a process of its own; medians with their 95% intervals (seeded percentile bootstrap; for 5 runs, the smallest to the largest). Peak RSS is the process's, absolute; peak − baseline is over the process's own baseline (the GEMM's share). Machine: ${machine?.cpu ?? 'unknown'}, ${machine?.cores ?? '?'} cores.`,
    '',
    'Storage:',
    '',
    storageNote(config.storage),
    '',
    infeasibleNote(grid),
    '',
    ...sections,
    '## Against the authors',
    '',
    `Theirs: untiled ${config.published.untiled.peakMB} MB peak in ${config.published.untiled.seconds} s; tile ${config.published.smallest.tile} at a ${config.published.smallest.budgetMB} MB budget ${config.published.smallest.peakMB} MB in ${config.published.smallest.seconds} s (Odroid-XU4, ArmCL, n = ${config.published.n}). Ours: the untiled GEMM at ${formatByteSize(grid.figure2Budget)} against tile ${grid.figure3Tile} at its smallest budget. ` +
      `A magnitude holds when the ratio's whole 95% interval (from the two medians' intervals) reaches ${SAME_ORDER} of theirs, does not hold when it lies wholly below, and is inconclusive (we cannot tell) when it straddles that or a cell has fewer than ${MIN_RUNS} runs.`,
    '',
    claimsTable(claims, label),
    '',
    deviceNote(config, cells, grid),
    '',
    balanceNote(config, cells, grid),
    '',
    kernel !== undefined && peer !== undefined
      ? `The kernel: ${kernel.toFixed(1)} GFLOP/s in the untiled product (WebAssembly SIMD, one thread) against ${peer.gflops.toFixed(1)} GFLOP/s for ${peer.runtime}'s MatMul on the same n in memory (one thread): ours/peer ${(kernel / peer.gflops).toFixed(2)}.`
      : '',
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')}\n`;
  await writeFileAtomic(join(out, 'gemm-tiling.md'), markdown);
  files.push(join(out, 'gemm-tiling.md'));
  return { markdown, files };
}

registerStudyReport('gemm-tiling', reportGemmTiling);
