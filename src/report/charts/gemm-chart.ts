import type { GemmCell } from '../../experiments/studies/gemm-tiling.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

/**
 * One of the GEMM study's figures as two panels side by side: time and measured peak (over
 * the baseline) against the tile size (Figure 2) or the budget (Figure 3, log axis), one
 * line per scheduler; the dashed line in the time panel is the time spent waiting for I/O.
 */
export function gemmChartSpec(cells: readonly GemmCell[], figure: 2 | 3, options: { title: string }): VegaLiteSpec {
  const own = cells.filter((c) => c.figure === figure);
  if (own.length === 0) throw new Error(`GEMM chart: no cells of figure ${figure}.`);
  const MIB = 2 ** 20;
  const rows = own.flatMap((c) => [
    { x: figure === 2 ? c.tile : c.budget / MIB, scheduler: c.scheduler, measure: 'time (s)', what: 'wall', value: c.wallMs / 1000 },
    { x: figure === 2 ? c.tile : c.budget / MIB, scheduler: c.scheduler, measure: 'time (s)', what: 'waiting for I/O', value: c.stallMs / 1000 },
    { x: figure === 2 ? c.tile : c.budget / MIB, scheduler: c.scheduler, measure: 'peak over baseline (MiB)', what: 'wall', value: c.peakRssDelta / MIB },
  ]);
  const x =
    figure === 2
      ? { field: 'x', type: 'ordinal', sort: 'descending', axis: { title: 'tile size (floats a side)', labelAngle: 0 } }
      : { field: 'x', type: 'quantitative', scale: { type: 'log', base: 2, reverse: true }, axis: { title: 'budget (MiB)', values: [...new Set(own.map((c) => c.budget / MIB))] } };
  const panel = (measure: string) => ({
    transform: [{ filter: { field: 'measure', equal: measure } }],
    width: 300,
    height: 220,
    mark: { type: 'line', point: { filled: true, size: 50 } },
    encoding: {
      x,
      y: { field: 'value', type: 'quantitative', axis: { title: measure, grid: true } },
      color: { field: 'scheduler', type: 'nominal', scale: { domain: ['dynamic', 'planned'], range: ['#4c78a8', '#e45756'] }, legend: { title: 'scheduler', orient: 'bottom' } },
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
  });
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, fontSize: 15, anchor: 'start', offset: 12 },
    data: { values: rows },
    hconcat: [panel('time (s)'), panel('peak over baseline (MiB)')],
    config: { view: { stroke: '#ddd' }, axis: { labelFontSize: 11, titleFontSize: 12 } },
  } as VegaLiteSpec;
}
