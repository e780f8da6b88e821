import * as z from 'zod';
import type { SchedulerKind } from '../../backends/gemm/schedule.ts';
import { fields, flag, nonEmptyList, oneOf, say, text, whole } from '../experiment-schema.ts';
import { positive, resultsName, studyFields } from './study-file-schema.ts';

/**
 * The shape of the GEMM-tiling study's file (experiments/gemm-tiling.json): what each field
 * may hold. What one field says about another (a figure's budget among the budgets, the
 * untiled tile among the tiles, no value twice), sizes and speeds read, and the defaults are
 * gemm-tiling-config.ts's.
 */

export const SCHEDULERS = ['dynamic', 'planned'] as const satisfies readonly SchedulerKind[];

/** Bytes, or a size such as "4MiB"; gemm-tiling-config.ts reads it (io/byte-size.ts). */
const byteSize = (description: string) => z.union([z.string(), z.number()], say('must be a size: bytes, or a string such as "4MiB".')).meta({ description });

/** Bytes per second, or a speed such as "400MB" or "400MB/s"; gemm-tiling-config.ts reads it (io/storage-bandwidth.ts). */
const speed = (description: string) => z.union([z.string(), z.number()], say('must be a speed per second such as "400MB".')).meta({ description });

/** The grid's fields: the file's own, and `quick`'s smaller grid. */
function grid() {
  return {
    n: whole(32).meta({ description: "The matrices' side: C = A B, each n x n float32." }),
    seed: whole(0).meta({ description: "Seed of the matrices' values and of the intervals' bootstrap (default 1)." }).optional(),
    repetitions: whole(1).meta({ description: 'Runs per cell, each in a process of its own; the report gives medians and their 95% intervals (default 1).' }).optional(),
    tiles: nonEmptyList(whole(32)).meta({ description: 'Tile sides: multiples of 32 that divide n; n itself (the untiled GEMM, the baseline of every ratio) among them.' }),
    budgets: nonEmptyList(byteSize('A budget of tile bytes resident: bytes or a size such as "4MiB".')).meta({
      description: "Budgets of tile bytes resident; every (tile, budget) that holds one step's three tiles runs.",
    }),
    figure2: fields({ budget: byteSize('One of budgets; the untiled GEMM must run there.') }).meta({ description: 'Figure 2: every tile at this budget.' }),
    figure3: fields({ tile: whole(32).meta({ description: 'One of tiles.' }) }).meta({ description: 'Figure 3: every budget at this tile.' }),
  };
}

/** A storage a cell's tiles are read from and written to: this machine's own, or a stated device. */
const storage = fields({
  id: resultsName().meta({ description: 'Names the storage in cells and file names: letters, digits, dots, dashes or underscores.' }),
  label: text('Names the storage in the report.'),
  read: speed('The stated device\'s read speed per second (e.g. "400MB"); absent: this machine\'s storage, unheld.').optional(),
  write: speed('Its write speed per second; default the read speed (needs read).').optional(),
  source: text('Where the stated speed comes from, for the report.').optional(),
});

/** A figure of the authors' as published. */
const figure = (description: string) => positive().meta({ description });

/** The GEMM-tiling study's file, as written (defaults are gemm-tiling-config.ts's). */
export function gemmTilingSchema() {
  return studyFields('gemm-tiling', {
    name: resultsName(),
    title: text('Title of the report.'),
    ...grid(),
    schedulers: nonEmptyList(oneOf(SCHEDULERS)).meta({ description: "The tile schedulers every cell runs: the authors' dynamic one, this project's planned one (default both)." }).optional(),
    storage: nonEmptyList(storage).meta({ description: "Where the cells' tiles are read and written, each storage a run of the grid (default this machine's storage)." }).optional(),
    peer: flag.meta({ description: "Time onnxruntime's MatMul on the same n, once (default true)." }).optional(),
    quick: fields(grid()).meta({ description: 'The smaller grid memplan run --quick runs, on the same schedulers and storage.' }).optional(),
    published: fields({
      n: whole(1).meta({ description: "Their matrices' side (4096)." }),
      untiled: fields({ peakMB: figure('Peak memory (MB).'), seconds: figure('Time (s).') }).meta({ description: 'The untiled GEMM.' }),
      smallest: fields({
        tile: figure('The tile of their smallest budget.'),
        budgetMB: figure('Their smallest budget (MB).'),
        peakMB: figure('Peak memory there (MB).'),
        seconds: figure('Time (s).'),
      }).meta({ description: 'Their smallest budget.' }),
    }).meta({ description: "The authors' figures (Odroid-XU4, ArmCL), carried as published." }),
  });
}

/** A GEMM-tiling study file as written, once its schema accepted it. */
export type GemmTilingFile = z.output<ReturnType<typeof gemmTilingSchema>>;
/** A grid of the file (its own, or `quick`'s). */
export type GemmGridFile = Pick<GemmTilingFile, keyof ReturnType<typeof grid>>;
