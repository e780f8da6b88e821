import type { ThesisFile } from './parallel-groups-schema.ts';
import type { Fail } from '../file-check.ts';

/**
 * The thesis' figures, as published (its table "Результаты (1)"): per network (the thesis'
 * name) and row id. Its times are the mean of its runs ± two standard deviations, so `ms`
 * and `twoSigmaMs` come together; memory in MB.
 */
export interface ThesisFigures {
  readonly citation: string;
  readonly device: string;
  readonly values: Readonly<Record<string, Readonly<Record<string, ThesisCell>>>>;
  /** The conclusion's one sentence of numbers, where the file gives it. */
  readonly headline?: ThesisHeadline;
}

export interface ThesisCell {
  /** Mean time of the thesis' runs (ms). */
  readonly ms?: number;
  /** Two standard deviations of those runs (ms): the ± of its table. */
  readonly twoSigmaMs?: number;
  readonly mb?: number;
}

/** "ResNeXt: 6.85% faster with 72.4% less memory": row `row` against row `against` on `network` (the thesis' name). */
export interface ThesisHeadline {
  readonly network: string;
  readonly row: string;
  readonly against: string;
  readonly fasterPercent: number;
  readonly lessMemoryPercent: number;
}

/**
 * `$.thesis` of the study file, as its schema read it (parallel-groups-schema.ts), checked
 * against the rest of the file. `names`: the thesis' names of the file's networks; `rowIds`:
 * the ids of its rows. A figure for a network or row the file does not run could never be
 * compared, so it is an error, as is a time without its spread.
 */
export function checkThesis(fail: Fail, thesis: ThesisFile, names: readonly string[], rowIds: readonly string[]): ThesisFigures {
  for (const [network, byRow] of Object.entries(thesis.values)) {
    if (!names.includes(network)) fail(`$.thesis.values.${network}`, 'names no network of $.networks (their "thesis" field).');
    for (const [row, cell] of Object.entries(byRow)) {
      const path = `$.thesis.values.${network}.${row}`;
      if (!rowIds.includes(row)) fail(path, `"${row}" is not the id of one of $.rows.`);
      if ((cell.ms === undefined) !== (cell.twoSigmaMs === undefined)) fail(path, 'ms and twoSigmaMs come together: the thesis gives every time as the mean of its runs ± two standard deviations.');
    }
  }
  const { headline } = thesis;
  if (headline !== undefined) {
    const path = '$.thesis.headline';
    const choice = (value: string, field: string, choices: readonly string[]): void => {
      if (!choices.includes(value)) fail(`${path}.${field}`, `must be one of ${choices.join(', ')}.`);
    };
    choice(headline.network, 'network', names);
    choice(headline.row, 'row', rowIds);
    choice(headline.against, 'against', rowIds);
    if (headline.row === headline.against) fail(`${path}.against`, 'must be another row than $.thesis.headline.row.');
  }
  return thesis;
}
