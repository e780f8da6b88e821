import type { GemmCell, GemmGrid } from '../../experiments/studies/gemm-tiling.ts';
import { paperFigure } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/**
 * One of the GEMM study's figures on one storage, as two panels side by side: time and
 * measured peak (over the baseline) against the tile size (Figure 2: the grid's row at its
 * budget) or the budget (Figure 3: its column at one tile, log axis), one line per
 * scheduler through the medians, a bar for each median's 95% interval; the dashed line in
 * the time panel is the time spent waiting for I/O. A two-column figure.
 */
export function gemmChartSpec(cells: readonly GemmCell[], grid: GemmGrid, storage: string, figure: 2 | 3, options: { title: string }): VegaLiteSpec {
  const own = cells.filter((c) => c.storage === storage && (figure === 2 ? c.budget === grid.figure2Budget : c.tile === grid.figure3Tile));
  if (own.length === 0) throw new Error(`GEMM chart: no cells of figure ${figure} on ${storage}.`);
  const MIB = 2 ** 20;
  const rows = own.flatMap((c) => {
    const x = figure === 2 ? c.tile : c.budget / MIB;
    return [
      { x, scheduler: c.scheduler, measure: 'time (s)', what: 'wall', value: c.wallMs.median / 1000, low: c.wallMs.ci95[0] / 1000, high: c.wallMs.ci95[1] / 1000 },
      { x, scheduler: c.scheduler, measure: 'time (s)', what: 'waiting for I/O', value: c.stallMs / 1000, low: c.stallMs / 1000, high: c.stallMs / 1000 },
      { x, scheduler: c.scheduler, measure: 'peak over baseline (MiB)', what: 'wall', value: c.peakRssDelta.median / MIB, low: c.peakRssDelta.ci95[0] / MIB, high: c.peakRssDelta.ci95[1] / MIB },
    ];
  });
  const x =
    figure === 2
      ? { field: 'x', type: 'ordinal', sort: 'descending', axis: { title: 'tile size (floats a side)', labelAngle: 0 } }
      : { field: 'x', type: 'quantitative', scale: { type: 'log', base: 2, reverse: true }, axis: { title: 'budget (MiB)', values: [...new Set(own.map((c) => c.budget / MIB))] } };
  const color = { field: 'scheduler', type: 'nominal', scale: { domain: ['dynamic', 'planned'], range: ['#4c78a8', '#e45756'] }, legend: { title: 'scheduler', orient: 'bottom' } };
  const y = (measure: string) => ({ field: 'value', type: 'quantitative', axis: { title: measure, grid: true } });
  // Lines, points and interval bars in layers of their own: a line's own points would share
  // its dash legend and draw its symbols unstroked.
  const panel = (measure: string) => ({
    transform: [{ filter: { field: 'measure', equal: measure } }],
    width: 260,
    height: 180,
    layer: [
      {
        mark: { type: 'line' },
        encoding: {
          x,
          y: y(measure),
          color,
          strokeDash: {
            field: 'what',
            type: 'nominal',
            scale: {
              domain: ['wall', 'waiting for I/O'],
              range: [
                [1, 0],
                [5, 3],
              ],
            },
            legend: { title: null, orient: 'bottom', symbolType: 'stroke', symbolStrokeWidth: 2 },
          },
        },
      },
      { mark: { type: 'point', filled: true, size: 50 }, encoding: { x, y: y(measure), color, detail: { field: 'what' } } },
      { mark: { type: 'rule', strokeWidth: 2 }, encoding: { x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color } },
    ],
  });
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title },
    data: { values: rows },
    hconcat: [panel('time (s)'), panel('peak over baseline (MiB)')],
    ...paperFigure('two-column', { view: { stroke: '#ddd' } }),
  } as VegaLiteSpec;
}
