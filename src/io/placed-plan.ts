import { InvalidProblemError, type Problem } from '../core/problem.ts';
import { InputError } from './input-error.ts';
import { readInputFile } from './read-input-file.ts';
import { decodeRecordText } from './record-text.ts';
import { parsePlacedRecordsCsv } from './records-csv.ts';
import { parsePlacedRecordsJson } from './records-json.ts';

/** A plan made elsewhere: its records and an offset per record, in record order. */
export interface PlacedPlan {
  readonly problem: Problem;
  readonly offsets: readonly number[];
}

export const PLACED_PLAN_FORMATS =
  "a .csv in MiniMalloc's format with an offset column (id,lower,upper,size,offset; half-open, as MiniMalloc writes its solutions) or a .json of records {id, size, first, last, offset} (closed)";

/**
 * Reads a plan another allocator wrote (or `memplan plan --to` did), by its extension:
 * MiniMalloc's CSV with offsets, or our records JSON with an offset per record. The
 * offsets are read as given; nothing about them is checked here (that is the verifier's).
 */
export async function loadPlacedPlan(file: string): Promise<PlacedPlan> {
  const extension = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (extension !== 'csv' && extension !== 'json') throw new InputError(file, undefined, `unknown plan file type; expected ${PLACED_PLAN_FORMATS}.`);
  const text = decodeRecordText(await readInputFile(file), file);
  try {
    return extension === 'csv' ? parsePlacedRecordsCsv(text, file) : parsePlacedRecordsJson(text, file);
  } catch (error) {
    // A problem the records themselves make invalid is the file's fault, said in one line.
    if (error instanceof InvalidProblemError) throw new InputError(file, undefined, error.message);
    throw error;
  }
}
