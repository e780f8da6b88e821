import { stringify } from 'csv-stringify/sync';
import { quantileSorted } from 'simple-statistics';
import type { TieOrderCell, TieOrderStudy } from '../experiments/tie-orders.ts';

const MIB = 2 ** 20;

/** What one (network, strategy) cell of the study comes to. */
export interface TieOrderRange {
  readonly model: string;
  readonly network: string;
  readonly planner: string;
  readonly plannerTitle: string;
  readonly lowerBound: number;
  readonly stable: number;
  readonly min: number;
  readonly median: number;
  readonly max: number;
  /** Distinct footprints over the draws and the stable order. */
  readonly distinct: number;
  /** Share of draws whose footprint is at most the stable one (1: the stable order is the worst). */
  readonly atMostStable: number;
}

export function tieOrderRange(cell: TieOrderCell): TieOrderRange {
  const sorted = [...cell.draws].sort((a, b) => a - b);
  return {
    model: cell.model,
    network: cell.modelLabel,
    planner: cell.planner,
    plannerTitle: cell.plannerTitle,
    lowerBound: cell.lowerBound,
    stable: cell.stable,
    min: Math.min(sorted[0], cell.stable),
    median: quantileSorted(sorted, 0.5),
    max: Math.max(sorted[sorted.length - 1], cell.stable),
    distinct: new Set([...cell.draws, cell.stable]).size,
    atMostStable: sorted.filter((f) => f <= cell.stable).length / sorted.length,
  };
}

const mib = (bytes: number): string => (bytes / MIB).toFixed(3);

/**
 * One row per strategy, one column per network: a strategy whose footprint never moves
 * shows it once; otherwise the range over the draws, its median, and the tables' figure
 * (TFLite's tie order). The last column says on how many networks the tie order mattered.
 */
export function tieOrderMarkdown(study: TieOrderStudy, title: string): string {
  const ranges = study.cells.map(tieOrderRange);
  const networks = [...new Set(ranges.map((r) => r.network))];
  const planners = [...new Set(ranges.map((r) => r.planner))];
  const rows = planners.map((planner) => {
    const own = ranges.filter((r) => r.planner === planner);
    const cells = networks.map((network) => {
      const r = own.find((x) => x.network === network);
      if (r === undefined) return '—';
      return r.distinct === 1 ? mib(r.stable) : `${mib(r.min)}–${mib(r.max)} (median ${mib(r.median)}; table ${mib(r.stable)})`;
    });
    const moved = own.filter((r) => r.distinct > 1).length;
    return `| ${own[0].plannerTitle} | ${cells.join(' | ')} | ${moved === 0 ? 'none' : `${moved} of ${own.length}`} |`;
  });
  return `${[
    `**${title}: footprint under ${study.drawCount} random tie orders** (MiB; seed ${study.seed})`,
    '',
    `| Strategy | ${networks.join(' | ')} | networks where the tie order matters |`,
    `|---|${networks.map(() => '---:').join('|')}|---:|`,
    ...rows,
  ].join('\n')}\n`;
}

/** Long format: one line per (network, strategy), bytes. */
export function tieOrderCsv(study: TieOrderStudy): string {
  return stringify([
    ['network', 'planner', 'lower_bound', 'table', 'min', 'median', 'max', 'distinct', 'draws', 'share_at_most_table'],
    ...study.cells.map(tieOrderRange).map((r) => [r.network, r.planner, r.lowerBound, r.stable, r.min, r.median, r.max, r.distinct, study.drawCount, r.atMostStable.toFixed(3)]),
  ]);
}
