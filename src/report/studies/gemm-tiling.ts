import { join } from 'node:path';
import { ResultStore } from '../../experiments/result-store.ts';
import type { GemmCell, GemmPeerCell, GemmTilingConfig } from '../../experiments/studies/gemm-tiling.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { gemmChartSpec } from '../charts/gemm-chart.ts';
import { renderChart } from '../charts/render.ts';
import { registerStudyReport } from '../study-reports.ts';

const MIB = 2 ** 20;
const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
const s = (ms: number): string => (ms / 1000).toFixed(2);

function figureTable(cells: readonly GemmCell[], figure: 2 | 3): string {
  const rows = cells
    .filter((c) => c.figure === figure)
    .map((c) => {
      const r = c.runs[0];
      const checks = c.runs.every((run) => run.check.within) ? `yes (${r.check.kind})` : '**NO**';
      return `| ${c.scheduler} | ${c.tile} | ${mib(c.budget)} | ${r.policy} | ${s(c.wallMs)} | ${s(c.computeMs)} | ${s(c.stallMs)} | ${mib(r.io.bytesRead)} | ${mib(r.io.bytesWritten)} | ${mib(Math.max(...c.runs.map((x) => x.tiles.residentHighWater)))} | ${mib(c.peakRssDelta)} | ${((r.n ** 3 * 2) / c.computeMs / 1e6).toFixed(1)} | ${checks} |`;
    });
  return [
    '| scheduler | tile | budget MiB | how tiles are kept | wall s | products s | waiting for I/O s | read MiB | written MiB | resident at most MiB | peak − baseline MiB | GFLOP/s | C correct |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/**
 * The authors' findings beside ours: peak reduction and time increase of their smallest
 * configuration against untiled, as ratios, and whether tile 2048 beats untiled.
 */
function comparison(config: GemmTilingConfig, cells: readonly GemmCell[], n: number): string {
  const { untiled: theirsUntiled, smallest: theirsSmallest } = config.published;
  const theirsPeak = theirsUntiled.peakMB / theirsSmallest.peakMB;
  const theirsTime = theirsSmallest.seconds / theirsUntiled.seconds;
  const lines = [
    '| | peak (theirs MB / ours MiB over baseline) | time s | peak reduction | time increase |',
    '|---|---:|---:|---:|---:|',
    `| theirs: untiled (Odroid-XU4, ArmCL) | ${theirsUntiled.peakMB} | ${theirsUntiled.seconds} | | |`,
    `| theirs: tile ${theirsSmallest.tile}, budget ${theirsSmallest.budgetMB} MB | ${theirsSmallest.peakMB} | ${theirsSmallest.seconds} | ${theirsPeak.toFixed(1)}x | ${theirsTime.toFixed(1)}x |`,
  ];
  const findings: string[] = [];
  for (const scheduler of [...new Set(cells.map((c) => c.scheduler))]) {
    const untiled = cells.find((c) => c.scheduler === scheduler && c.figure === 2 && c.tile === n);
    const budgets = cells.filter((c) => c.scheduler === scheduler && c.figure === 3);
    const smallest = budgets.reduce<GemmCell | undefined>((best, c) => (best === undefined || c.budget < best.budget ? c : best), undefined);
    if (untiled === undefined || smallest === undefined) continue;
    const peak = untiled.peakRssDelta / smallest.peakRssDelta;
    const time = smallest.wallMs / untiled.wallMs;
    lines.push(`| ours, ${scheduler}: untiled | ${mib(untiled.peakRssDelta)} | ${s(untiled.wallMs)} | | |`);
    lines.push(`| ours, ${scheduler}: tile ${smallest.tile}, budget ${mib(smallest.budget)} MiB | ${mib(smallest.peakRssDelta)} | ${s(smallest.wallMs)} | ${peak.toFixed(1)}x | ${time.toFixed(2)}x |`);
    findings.push(
      `- ${scheduler}: ${peak.toFixed(1)}x less peak for ${time.toFixed(2)}x the time (theirs: ${theirsPeak.toFixed(1)}x for ${theirsTime.toFixed(1)}x): ` +
        `the memory finding ${peak >= 8 ? 'holds' : 'does not hold'} (${peak >= theirsPeak ? 'a larger' : 'a smaller'} reduction than theirs); ` +
        `the time cost ${time > 1 ? `holds in direction, ${time < theirsTime ? 'far smaller' : 'larger'} than theirs` : 'does not appear (tiled is not slower)'}.`,
    );
    const half = cells.find((c) => c.scheduler === scheduler && c.figure === 2 && c.tile === n / 2);
    if (half !== undefined) {
      const faster = half.wallMs < untiled.wallMs;
      findings.push(
        `- ${scheduler}: tile ${n / 2} ${faster ? 'is faster than' : 'is not faster than'} untiled (${s(half.wallMs)} s against ${s(untiled.wallMs)} s; waiting for I/O ${s(half.stallMs)} s against ${s(untiled.stallMs)} s): their "tile 2048 beats untiled because I/O overlaps compute" ${faster ? 'holds' : 'does not hold'} here.`,
      );
    }
  }
  return `${lines.join('\n')}\n\n${findings.join('\n')}`;
}

async function reportGemmTiling(dir: string, info: Record<string, unknown>): Promise<{ markdown: string; files: string[] }> {
  const config = info.config as GemmTilingConfig;
  const all = await new ResultStore(dir).readCells<GemmCell | GemmPeerCell>();
  const cells = all.filter((c): c is GemmCell => 'figure' in c);
  const peer = all.find((c): c is GemmPeerCell => 'peer' in c)?.peer;
  if (cells.length === 0) throw new Error(`${dir}: the run holds no GEMM cells yet.`);
  const n = cells[0].runs[0].n;
  const out = join(dir, 'report');
  const files: string[] = [];
  for (const figure of [2, 3] as const) {
    const base = join(out, `gemm-figure${figure}`);
    const title =
      figure === 2
        ? `Figure 2 analogue: tile sizes at a ${mib(cells.find((c) => c.figure === 2)!.budget)} MiB budget (n = ${n})`
        : `Figure 3 analogue: budgets at tile ${cells.find((c) => c.figure === 3)!.tile} (n = ${n})`;
    await renderChart(gemmChartSpec(cells, figure, { title }), base);
    files.push(`${base}.svg`, `${base}.png`, `${base}.vl.json`);
  }
  const untiled = cells.filter((c) => c.figure === 2 && c.tile === n);
  const kernel = untiled.length > 0 ? Math.max(...untiled.map((c) => (2 * n ** 3) / c.computeMs / 1e6)) : undefined;
  const machine = info.machine as { cpu?: string; cores?: number } | undefined;
  const markdown = `${[
    `# ${config.title}`,
    '',
    `n = ${n}, float32, seed ${cells[0].runs[0].seed}; ${cells[0].runs[0].directIo ? 'reads and writes with O_DIRECT (the storage, not the page cache)' : 'reads and writes through the page cache'}; medians of ${cells[0].runs.length} run(s) per cell, each in a process of its own (peak RSS over its baseline). Machine: ${machine?.cpu ?? 'unknown'}, ${machine?.cores ?? '?'} cores.`,
    '',
    '## Figure 2 analogue: tile sizes (the tile equal to n is the untiled GEMM)',
    '',
    figureTable(cells, 2),
    '',
    '![Figure 2 analogue](gemm-figure2.png)',
    '',
    '## Figure 3 analogue: budgets',
    '',
    figureTable(cells, 3),
    '',
    '![Figure 3 analogue](gemm-figure3.png)',
    '',
    '## Against the authors',
    '',
    comparison(config, cells, n),
    '',
    kernel !== undefined && peer !== undefined
      ? `The kernel: ${kernel.toFixed(1)} GFLOP/s in the untiled product (WebAssembly SIMD, one thread) against ${peer.gflops.toFixed(1)} GFLOP/s for ${peer.runtime}'s MatMul on the same n in memory (one thread): ours/peer ${(kernel / peer.gflops).toFixed(2)}.`
      : '',
  ].join('\n')}\n`;
  await writeFileAtomic(join(out, 'gemm-tiling.md'), markdown);
  files.push(join(out, 'gemm-tiling.md'));
  return { markdown, files };
}

registerStudyReport('gemm-tiling', reportGemmTiling);
