import { expect } from 'vitest';
import { compileChart, type VegaLiteSpec } from '../../../src/report/charts/render.ts';

type Row = Record<string, unknown>;

/** The inline rows of a spec's top-level data. */
export function rowsOf(spec: VegaLiteSpec): Row[] {
  const data = (spec as { data?: { values?: Row[] } }).data;
  expect(Array.isArray(data?.values)).toBe(true);
  return data!.values!;
}

/** Compiles with vega-lite and expects neither an error nor a warning. */
export function expectCompiles(spec: VegaLiteSpec): void {
  const { vega, warnings } = compileChart(spec);
  expect(warnings).toEqual([]);
  expect(Array.isArray(vega.marks)).toBe(true);
}
