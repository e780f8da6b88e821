import type { JsonFields } from '../json-fields.ts';

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
 * `$.thesis` of the study file. `names`: the thesis' names of the file's networks; `rowIds`:
 * the ids of its rows. A figure for a network or row the file does not run could never be
 * compared, so it is an error, as is a time without its spread.
 */
export function parseThesis(j: JsonFields, value: unknown, names: readonly string[], rowIds: readonly string[]): ThesisFigures {
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  const positive = (v: unknown, path: string): number => (finite(v) && v > 0 ? v : j.fail(path, 'must be a number > 0.'));
  const nonNegative = (v: unknown, path: string): number => (finite(v) && v >= 0 ? v : j.fail(path, 'must be a number >= 0.'));
  const thesis = j.object(value, '$.thesis');
  j.only(thesis, ['citation', 'device', 'values', 'headline'], '$.thesis');
  const values: Record<string, Record<string, ThesisCell>> = {};
  for (const [network, byRow] of Object.entries(j.object(thesis.values, '$.thesis.values'))) {
    if (!names.includes(network)) j.fail(`$.thesis.values.${network}`, 'names no network of $.networks (their "thesis" field).');
    values[network] = {};
    for (const [row, figures] of Object.entries(j.object(byRow, `$.thesis.values.${network}`))) {
      const path = `$.thesis.values.${network}.${row}`;
      if (!rowIds.includes(row)) j.fail(path, `"${row}" is not the id of one of $.rows.`);
      const spec = j.object(figures, path);
      j.only(spec, ['ms', 'twoSigmaMs', 'mb'], path);
      if ((spec.ms === undefined) !== (spec.twoSigmaMs === undefined)) j.fail(path, 'ms and twoSigmaMs come together: the thesis gives every time as the mean of its runs ± two standard deviations.');
      values[network][row] = {
        ...(spec.ms === undefined ? {} : { ms: positive(spec.ms, `${path}.ms`), twoSigmaMs: nonNegative(spec.twoSigmaMs, `${path}.twoSigmaMs`) }),
        ...(spec.mb === undefined ? {} : { mb: positive(spec.mb, `${path}.mb`) }),
      };
    }
  }
  let headline: ThesisHeadline | undefined;
  if (thesis.headline !== undefined) {
    const path = '$.thesis.headline';
    const spec = j.object(thesis.headline, path);
    j.only(spec, ['network', 'row', 'against', 'fasterPercent', 'lessMemoryPercent'], path);
    const network = j.choice(spec.network, `${path}.network`, names);
    const row = j.choice(spec.row, `${path}.row`, rowIds);
    const against = j.choice(spec.against, `${path}.against`, rowIds);
    if (row === against) j.fail(`${path}.against`, 'must be another row than $.thesis.headline.row.');
    headline = { network, row, against, fasterPercent: positive(spec.fasterPercent, `${path}.fasterPercent`), lessMemoryPercent: positive(spec.lessMemoryPercent, `${path}.lessMemoryPercent`) };
  }
  return { citation: j.string(thesis.citation, '$.thesis.citation'), device: j.string(thesis.device, '$.thesis.device'), values, ...(headline ? { headline } : {}) };
}
