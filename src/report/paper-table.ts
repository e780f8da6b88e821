import type { LowerBounds } from '../core/bounds.ts';
import type { Approach } from '../core/plans.ts';
import { UNIT_BYTES, type ReportOptions, type Unit } from '../experiments/config.ts';
import type { CellResult } from '../experiments/result.ts';

/** A table laid out like the paper's: a column per network, a row per strategy, then the bound and naive. */
export interface PaperTable {
  readonly title: string;
  readonly unit: Unit;
  readonly columns: readonly string[];
  readonly rows: readonly TableRow[];
}

export interface TableRow {
  readonly label: string;
  /** Bytes per column; undefined where the cell did not run. */
  readonly values: readonly (number | undefined)[];
  readonly kind: 'strategy' | 'published' | 'optimal' | 'lower-bound' | 'naive';
  /** Per column: is this the smallest strategy footprint (ties all marked)? */
  readonly best: readonly boolean[];
  /** 'optimal' rows: per column, proven optimal (true) or only the best found (false). */
  readonly proven?: readonly (boolean | undefined)[];
}

export interface TableSpec {
  readonly title: string;
  readonly approach: Approach;
  readonly report: ReportOptions;
}

export function buildPaperTable(results: readonly CellResult[], spec: TableSpec): PaperTable {
  const models: string[] = [];
  const labels: string[] = [];
  for (const r of results) {
    if (!models.includes(r.model)) {
      models.push(r.model);
      labels.push(r.modelLabel);
    }
  }
  const cell = (planner: string, model: string): CellResult | undefined => results.find((r) => r.planner === planner && r.model === model);
  const anyCell = (model: string): CellResult | undefined => results.find((r) => r.model === model);
  // Rows in the order the report asks, else in the order the run met the planners.
  const order = (spec.report.rows ?? [...new Set(results.map((r) => r.planner))]).filter((id) => !id.endsWith('/naive'));
  const strategies: TableRow[] = [];
  const optimal: TableRow[] = [];
  for (const planner of order) {
    const values = models.map((m) => cell(planner, m)?.footprint);
    const title = results.find((r) => r.planner === planner)?.plannerTitle ?? planner;
    // Exact planners (their cells carry an optimality claim) are the yardstick, not a
    // competitor: their row sits above the lower bound, out of the "best" marking.
    if (results.some((r) => r.planner === planner && r.optimal !== undefined)) {
      optimal.push({ label: 'Optimal', values, kind: 'optimal', best: models.map(() => false), proven: models.map((m) => cell(planner, m)?.optimal) });
      continue;
    }
    const contiguous = spec.approach === 'offsets' && planner.startsWith('shared-objects/');
    strategies.push({ label: contiguous ? `${title}, objects contiguous` : title, values, kind: 'strategy', best: [] });
    const published = spec.report.reference?.[planner];
    if (published) {
      const bytes = UNIT_BYTES[spec.report.unit];
      strategies.push({ label: `${title} (published)`, values: models.map((m) => (published[m] === undefined ? undefined : published[m] * bytes)), kind: 'published', best: models.map(() => false) });
    }
  }
  const minima = models.map((_, c) => Math.min(...strategies.filter((r) => r.kind === 'strategy').map((r) => r.values[c] ?? Infinity)));
  const marked = strategies.map((row) => ({ ...row, best: row.kind === 'strategy' ? row.values.map((v, c) => v !== undefined && v === minima[c]) : row.best }));
  /** The lower bound of the table's approach. */
  const ofApproach = (bounds: LowerBounds | undefined): number | undefined => (bounds === undefined ? undefined : spec.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects);
  const bound = (m: string): number | undefined => ofApproach(anyCell(m)?.lowerBounds);
  // The bound under the other operator order, where the networks have one (records files do not).
  const other = results.find((r) => r.otherOrder !== undefined)?.otherOrder?.order;
  const otherBound = (m: string): number | undefined => ofApproach(anyCell(m)?.otherOrder?.lowerBounds);
  const used = other === 'given' ? 'memory-aware' : 'given';
  const boundRows: TableRow[] =
    other === undefined
      ? [{ label: 'Lower bound', values: models.map(bound), kind: 'lower-bound', best: models.map(() => false) }]
      : [
          { label: `Lower bound, ${used} order`, values: models.map(bound), kind: 'lower-bound', best: models.map(() => false) },
          { label: `Lower bound, ${other} order`, values: models.map(otherBound), kind: 'lower-bound', best: models.map(() => false) },
        ];
  return {
    title: spec.title,
    unit: spec.report.unit,
    columns: labels,
    rows: [...marked, ...optimal, ...boundRows, { label: 'Naive', values: models.map((m) => anyCell(m)?.naive), kind: 'naive', best: models.map(() => false) }],
  };
}

/** The cells of a row as text; an optimum not proven reads `<= x` (the best found). */
export function formatCells(row: TableRow, unit: Unit): string[] {
  return row.values.map((v, c) => (row.proven?.[c] === false && v !== undefined ? `<= ${formatValue(v, unit)}` : formatValue(v, unit)));
}

export function formatValue(bytes: number | undefined, unit: Unit): string {
  if (bytes === undefined) return '—';
  if (unit === 'bytes') return String(bytes);
  const value = bytes / UNIT_BYTES[unit];
  // Three decimals, except below a tenth of the unit (traces of a few KiB beside ones of
  // GiB in one table): three significant digits there, never a misleading 0.000.
  return value !== 0 && Math.abs(value) < 0.1 ? value.toPrecision(3) : value.toFixed(3);
}
