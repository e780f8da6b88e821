import type { GemmCell, GemmGrid, MedianInterval } from '../../experiments/studies/gemm-tiling.ts';
import { formatByteSize } from '../../io/byte-size.ts';
import type { GemmClaim } from './gemm-claims.ts';
import { showRatio } from './gemm-verdicts.ts';

const MIB = 2 ** 20;
export const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
const seconds = (ms: number): string => (ms / 1000).toFixed(2);
/** A median and its 95% interval: `3.62 [3.55, 3.70]`. */
const interval = (m: MedianInterval, show: (v: number) => string): string => `${show(m.median)} [${show(m.ci95[0])}, ${show(m.ci95[1])}]`;

/** The median run of a cell (by wall time): the one whose I/O figures the tables show. */
function typical(cell: GemmCell): GemmCell['runs'][number] {
  const sorted = [...cell.runs].sort((a, b) => a.wallMs - b.wallMs);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * One storage's slice of the grid: Figure 2 (every tile at its budget) or Figure 3 (every
 * budget at its tile), both schedulers, medians with their 95% intervals.
 */
export function figureTable(cells: readonly GemmCell[], storage: string, grid: GemmGrid, figure: 2 | 3): string {
  const rows = cells
    .filter((c) => c.storage === storage && (figure === 2 ? c.budget === grid.figure2Budget : c.tile === grid.figure3Tile))
    .map((c) => {
      const r = typical(c);
      const checks = c.runs.every((run) => run.check.within) ? `yes (${r.check.kind})` : '**NO**';
      return `| ${c.scheduler} | ${c.tile} | ${formatByteSize(c.budget)} | ${r.policy} | ${interval(c.wallMs, seconds)} | ${seconds(c.computeMs)} | ${seconds(c.stallMs)} | ${mib(r.io.bytesRead)} | ${mib(r.io.bytesWritten)} | ${mib(Math.max(...c.runs.map((x) => x.tiles.residentHighWater)))} | ${interval(c.peakRss, mib)} | ${interval(c.peakRssDelta, mib)} | ${c.runs.length} | ${checks} |`;
    });
  return [
    '| scheduler | tile | budget | how tiles are kept | wall s [95%] | products s | waiting for I/O s | read MiB | written MiB | resident at most MiB | peak RSS MiB [95%] | peak − baseline MiB [95%] | runs | C correct |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/** The whole grid of one storage and scheduler: a row per tile, a column per budget; a cell that cannot run is a dash. */
export function gridTable(cells: readonly GemmCell[], storage: string, scheduler: string, grid: GemmGrid): string {
  const header = `| tile \\ budget | ${grid.budgets.map(formatByteSize).join(' | ')} |`;
  const rule = `|---:|${grid.budgets.map(() => '---:').join('|')}|`;
  const rows = grid.tiles.map((tile) => {
    const entries = grid.budgets.map((budget) => {
      const c = cells.find((x) => x.storage === storage && x.scheduler === scheduler && x.tile === tile && x.budget === budget);
      return c === undefined ? '—' : `${seconds(c.wallMs.median)} s · +${mib(c.peakRssDelta.median)} · ${mib(typical(c).io.bytesRead)} R`;
    });
    return `| ${tile} | ${entries.join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** The findings, each with ours, the stated threshold and the verdict. */
export function claimsTable(claims: readonly GemmClaim[], storageLabel: (id: string) => string): string {
  const verdict = (c: GemmClaim): string => (c.decision.verdict === 'holds' ? 'holds' : c.decision.verdict === 'does not hold' ? '**does not hold**' : '*inconclusive*');
  return [
    '| finding | storage | scheduler | theirs | ours [95% interval] | holds when | verdict | why |',
    '|---|---|---|---:|---:|---|---|---|',
    ...claims.map((c) => `| ${c.claim} | ${storageLabel(c.storage)} | ${c.scheduler} | ${c.theirs} | ${showRatio(c.ours)} | ${c.rule} | ${verdict(c)} | ${c.decision.why} |`),
  ].join('\n');
}
