import type { TieOrderStudy } from '../../experiments/tie-orders.ts';
import { tieOrderRange } from '../tie-order-table.ts';
import { firstSeen } from './footprint-chart.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

/**
 * Range chart of the tie-order study: one panel per network, one line per strategy from
 * the smallest to the largest footprint over the draws (over the lower bound), a tick at
 * the median and a dot at the tables' figure (TFLite's tie order). A strategy the tie
 * order does not move is a lone dot. Strategies over 1.5x the bound on every network
 * (naive, equality) are left out: they would squash the others (the table has them).
 */
/** Over this many times the bound on every network: not charted. */
const FAR = 1.5;

export function tieOrderChartSpec(study: TieOrderStudy, options: { title: string }): VegaLiteSpec {
  const all = study.cells.map(tieOrderRange);
  const far = new Set(firstSeen(all.map((r) => r.planner)).filter((p) => all.every((r) => r.planner !== p || r.min > FAR * r.lowerBound)));
  const ranges = all.filter((r) => !far.has(r.planner));
  if (ranges.length === 0) throw new Error('tie-order chart: the study has no cells to draw.');
  const data = ranges.map((r) => ({
    network: r.network,
    planner: r.plannerTitle,
    min: r.min / r.lowerBound,
    median: r.median / r.lowerBound,
    max: r.max / r.lowerBound,
    table: r.stable / r.lowerBound,
  }));
  const networks = firstSeen(data.map((d) => d.network));
  const planners = firstSeen(data.map((d) => d.planner));
  const top = Math.max(...data.map((d) => d.max));
  const x = { type: 'quantitative', scale: { domain: [1, Math.ceil(top * 10) / 10], nice: false, zero: false }, axis: { title: null, format: '.1f', tickCount: 4, grid: true } };
  const y = { field: 'planner', type: 'nominal', sort: planners, axis: { title: null, labelLimit: 380 } };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle: `footprint / lower bound under ${study.drawCount} seeded random tie orders; line: min to max, tick: median, dot: the tables' order`,
      fontSize: 15,
      anchor: 'start',
      offset: 12,
    },
    data: { values: data },
    facet: { column: { field: 'network', type: 'nominal', sort: networks, header: { title: null, labelFontSize: 12 } } },
    spec: {
      width: 150,
      height: { step: 18 },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2, color: '#4c78a8' }, encoding: { y, x: { field: 'min', ...x }, x2: { field: 'max' } } },
        { mark: { type: 'tick', thickness: 2, size: 12, color: '#4c78a8' }, encoding: { y, x: { field: 'median', ...x } } },
        { mark: { type: 'point', filled: true, size: 40, color: '#e45756' }, encoding: { y, x: { field: 'table', ...x } } },
      ],
    },
    resolve: { scale: { x: 'shared' } },
    config: { view: { stroke: '#ddd' }, axis: { labelFontSize: 11, titleFontSize: 12 } },
  } as VegaLiteSpec;
}
