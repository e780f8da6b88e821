import { formatByteSize } from '../../io/byte-size.ts';
import { gridCells, type GemmGrid, type GemmStorage, type GemmTilingConfig } from '../../experiments/studies/gemm-tiling-config.ts';
import type { GemmCell } from '../../experiments/studies/gemm-tiling.ts';
import { claimCells } from './gemm-claims.ts';
import { mib } from './gemm-tables.ts';

/** The storage each cell ran on: this machine's, or a stated device with its speeds and where they come from. */
export function storageNote(storage: readonly GemmStorage[]): string {
  return storage
    .map((s) => {
      const speeds = s.speeds === undefined ? "this machine's storage as it is, no speed stated" : `reads held to ${s.speeds.read.label}, writes to ${s.speeds.write.label}`;
      return `- **${s.label}** (\`${s.id}\`): ${speeds}.${s.source ? ` ${s.source}` : ''}`;
    })
    .join('\n');
}

/** Which cells of the grid cannot run and why: per tile, the budgets under one step's three tiles. */
export function infeasibleNote(grid: GemmGrid): string {
  const { infeasible } = gridCells(grid);
  if (infeasible.length === 0) return 'Every cell of the grid runs.';
  const byTile = grid.tiles
    .map((tile) => ({ tile, budgets: infeasible.filter((c) => c.tile === tile).map((c) => c.budget) }))
    .filter((t) => t.budgets.length > 0)
    .map((t) => `tile ${t.tile} at ${t.budgets.map(formatByteSize).join(', ')} (one step holds an A, a B and a C tile: ${formatByteSize(3 * t.tile * t.tile * 4)})`);
  return `Cells that cannot run, since a budget must hold one step's three tiles: ${byTile.join('; ')}.`;
}

/**
 * What a larger budget buys the planned scheduler at Figure 3's tile: the policy each budget
 * settles on and the bytes it reads; from the budget where it reads each input once, no
 * schedule can read less, so a larger arena cannot help.
 */
export function residencyNote(cells: readonly GemmCell[], grid: GemmGrid, storage: string): string {
  const column = cells.filter((c) => c.storage === storage && c.scheduler === 'planned' && c.tile === grid.figure3Tile).sort((a, b) => a.budget - b.budget);
  if (column.length === 0) return '';
  const once = 2 * grid.n * grid.n * 4;
  const steps = column.map((c) => `${formatByteSize(c.budget)}: ${c.runs[0].policy}, ${mib(c.runs[0].io.bytesRead)} MiB read`);
  const least = column.find((c) => c.runs[0].io.bytesRead <= once);
  const floor =
    least === undefined
      ? `No budget here lets it read each input once (${mib(once)} MiB).`
      : `From ${formatByteSize(least.budget)} on it reads A and B once each (${mib(once)} MiB), the least any schedule can read: a larger budget cannot buy fewer reads, only the same arena.`;
  return `The planned scheduler at tile ${grid.figure3Tile}, by budget: ${steps.join('; ')}. ${floor}`;
}

/**
 * For each stated device: how long the smallest configuration's transfers keep it busy at
 * the stated speed, beside how much longer the authors' smallest run took than their
 * untiled one: the bytes a device of this speed would have to move to account for that.
 */
export function deviceNote(config: GemmTilingConfig, cells: readonly GemmCell[], grid: GemmGrid): string {
  const { untiled, smallest } = config.published;
  const extra = smallest.seconds - untiled.seconds;
  const lines: string[] = [];
  for (const storage of config.storage) {
    if (storage.speeds === undefined) continue;
    const { read, write } = storage.speeds;
    for (const scheduler of config.schedulers) {
      const cell = claimCells(cells, grid, storage.id, scheduler).smallest;
      if (cell === undefined) continue;
      const io = cell.runs[0].io;
      const busy = io.bytesRead / read.bytesPerSecond + io.bytesWritten / write.bytesPerSecond;
      lines.push(
        `- ${storage.label}, ${scheduler}: tile ${cell.tile} at ${formatByteSize(cell.budget)} reads ${mib(io.bytesRead)} MiB and writes ${mib(io.bytesWritten)} MiB, ${busy.toFixed(2)} s of the device at its stated speed. ` +
          `The authors' smallest run took ${extra} s longer than their untiled one: a device at ${read.label} moves ${formatByteSize(extra * read.bytesPerSecond)} in that time, ${((extra * read.bytesPerSecond) / (io.bytesRead + io.bytesWritten)).toFixed(0)}x what this configuration moves.`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Why the authors' time cost cannot appear at their storage speed on this machine: what
 * matters is storage speed against compute speed. Their untiled run (all of its 121 s
 * counted as compute, an upper bound) gives their GFLOP/s; ours is the untiled products'.
 * A device standing to our kernel as theirs stood to their compute would be this much slower.
 */
export function balanceNote(config: GemmTilingConfig, cells: readonly GemmCell[], grid: GemmGrid): string {
  if (grid.n !== config.published.n) return '';
  const untiled = cells.filter((c) => c.tile === grid.n && c.budget === grid.figure2Budget);
  if (untiled.length === 0) return '';
  const flops = 2 * grid.n ** 3;
  const ours = Math.max(...untiled.map((c) => flops / c.computeMs / 1e6));
  const theirs = flops / config.published.untiled.seconds / 1e9;
  const lines = config.storage
    .filter((s) => s.speeds !== undefined)
    .map((s) => `${s.label} at ${s.speeds!.read.label} would stand to our kernel as to theirs at ${formatByteSize((s.speeds!.read.bytesPerSecond * theirs) / ours)}/s`);
  if (lines.length === 0) return '';
  return `Our untiled products run at ${ours.toFixed(1)} GFLOP/s; theirs at most ${theirs.toFixed(2)} GFLOP/s (${config.published.untiled.seconds} s for ${(flops / 1e9).toFixed(0)} GFLOP, I/O included), ${(ours / theirs).toFixed(0)}x slower. Storage at their speed is therefore ${(ours / theirs).toFixed(0)}x faster against our compute than against theirs: ${lines.join('; ')}.`;
}
