import type { GemmCell, GemmGrid, GemmTilingConfig } from '../../experiments/studies/gemm-tiling.ts';
import { atLeast, below, ratioOf, SAME_ORDER, type Decision, type Ratio } from './gemm-verdicts.ts';

/** One finding of the authors, decided on one storage and scheduler. */
export interface GemmClaim {
  readonly claim: string;
  readonly storage: string;
  readonly scheduler: string;
  /** The authors' figure, as they give it. */
  readonly theirs: string;
  readonly ours: Ratio;
  /** The stated threshold, in words. */
  readonly rule: string;
  readonly decision: Decision;
}

/** The cells the findings compare: the untiled GEMM, the smallest configuration, and the tile of half n (each at one storage and scheduler). */
export interface ClaimCells {
  readonly untiled?: GemmCell;
  readonly smallest?: GemmCell;
  readonly half?: GemmCell;
}

/**
 * The cells of a storage and scheduler the findings rest on: the untiled GEMM and tile n/2
 * at Figure 2's budget (their Figure 2), and Figure 3's tile at the smallest budget it runs
 * at (their 23 MB / 498 s point: tile 512 at 4 MB).
 */
export function claimCells(cells: readonly GemmCell[], grid: GemmGrid, storage: string, scheduler: string): ClaimCells {
  const own = cells.filter((c) => c.storage === storage && c.scheduler === scheduler);
  const at = (tile: number, budget: number): GemmCell | undefined => own.find((c) => c.tile === tile && c.budget === budget);
  const column = own.filter((c) => c.tile === grid.figure3Tile);
  const smallest = column.reduce<GemmCell | undefined>((best, c) => (best === undefined || c.budget < best.budget ? c : best), undefined);
  return { untiled: at(grid.n, grid.figure2Budget), smallest, half: at(grid.n / 2, grid.figure2Budget) };
}

/**
 * The authors' findings decided on our runs, per storage and scheduler: tiling cuts the
 * peak 17.3x (absolute peak RSS, as theirs is a whole process's; and over the process's
 * baseline, the GEMM's own share), for 4.1x the time; tile 2048 beats untiled. A magnitude
 * holds when the ratio's whole 95% interval reaches SAME_ORDER of theirs.
 */
export function gemmClaims(config: GemmTilingConfig, cells: readonly GemmCell[], grid: GemmGrid): GemmClaim[] {
  const { untiled: u, smallest: s } = config.published;
  const peak = u.peakMB / s.peakMB;
  const time = s.seconds / u.seconds;
  const out: GemmClaim[] = [];
  for (const storage of config.storage) {
    for (const scheduler of config.schedulers) {
      const { untiled, smallest, half } = claimCells(cells, grid, storage.id, scheduler);
      const row = (claim: string, theirs: string, ours: Ratio, rule: string, decision: Decision): void => {
        out.push({ claim, storage: storage.id, scheduler, theirs, ours, rule, decision });
      };
      if (untiled !== undefined && smallest !== undefined) {
        const threshold = (published: number): number => published * SAME_ORDER;
        const peakRule = `≥ ${threshold(peak).toFixed(2)}x (${SAME_ORDER} of theirs)`;
        const absolute = ratioOf(untiled.peakRss, smallest.peakRss);
        row('less peak memory: peak RSS, untiled / smallest', `${peak.toFixed(1)}x (${u.peakMB} / ${s.peakMB} MB)`, absolute, peakRule, atLeast(absolute, threshold(peak)));
        const delta = ratioOf(untiled.peakRssDelta, smallest.peakRssDelta);
        row('less peak memory: peak over the baseline, untiled / smallest', `${peak.toFixed(1)}x (whole process)`, delta, peakRule, atLeast(delta, threshold(peak)));
        const slower = ratioOf(smallest.wallMs, untiled.wallMs);
        row(
          'more time: wall time, smallest / untiled',
          `${time.toFixed(1)}x (${s.seconds} / ${u.seconds} s)`,
          slower,
          `≥ ${threshold(time).toFixed(2)}x (${SAME_ORDER} of theirs)`,
          atLeast(slower, threshold(time)),
        );
      }
      if (untiled !== undefined && half !== undefined) {
        const faster = ratioOf(half.wallMs, untiled.wallMs);
        row(`tile ${half.tile} beats untiled: wall time, tile ${half.tile} / untiled`, 'faster (Figure 2)', faster, '< 1x', below(faster, 1));
      }
    }
  }
  return out;
}
