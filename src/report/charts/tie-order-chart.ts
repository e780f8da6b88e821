import type { TieOrderStudy } from '../../experiments/tie-orders.ts';
import { tieOrderRange } from '../tie-order-table.ts';
import { ratioAxisEnd, ratioTicks } from './axis-values.ts';
import { FAR_FROM_BOUND, farPlanners, firstSeen, ratioRange } from './footprint-chart.ts';
import { paperFigure, wrappedLabelExpr, wrappedLabelOffset } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** Where the planners' names are wrapped (characters): a name on at most two lines. */
const LABEL_CHARS = 40;
/** Networks side by side; the rest below. */
const COLUMNS = 3;

/**
 * Range chart of the tie-order study: one panel per network (three to a row), one line per
 * strategy from the smallest to the largest footprint over the draws (over the lower bound),
 * a tick at the median and a dot at the tables' figure (TFLite's tie order). A strategy the
 * tie order does not move is a lone dot. Strategies over 1.5x the bound on every network
 * (naive, equality) are left out, named in the subtitle: they would squash the others (the
 * table has them). A two-column figure.
 */
export function tieOrderChartSpec(study: TieOrderStudy, options: { title: string }): VegaLiteSpec {
  const all = study.cells.map(tieOrderRange);
  const far = farPlanners(all.map((r) => ({ planner: r.plannerTitle, ratio: r.min / r.lowerBound })));
  const ranges = all.filter((r) => !far.includes(r.plannerTitle));
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
  const top = ratioAxisEnd(Math.max(...data.map((d) => d.max)));
  const x = {
    type: 'quantitative',
    scale: { domain: [1, top], nice: false, zero: false },
    axis: { title: null, format: '.1f', values: ratioTicks(top).filter((_, k, all) => all.length <= 4 || k % 2 === 0), grid: true },
  };
  const labelExpr = wrappedLabelExpr(planners, LABEL_CHARS);
  const labelOffset = wrappedLabelOffset(planners, LABEL_CHARS);
  const y = { field: 'planner', type: 'nominal', sort: planners, axis: { title: null, ...(labelExpr ? { labelExpr } : {}), ...(labelOffset ? { labelOffset } : {}) } };
  const leftOut = far.map((p) =>
    ratioRange(
      p,
      all.filter((r) => r.plannerTitle === p).map((r) => r.min / r.lowerBound),
    ),
  );
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle: [
        `Footprint / lower bound under ${study.drawCount} seeded random tie orders; line: min to max, tick: median, dot: the tables' order.`,
        ...(leftOut.length > 0 ? [`Left out, over ${FAR_FROM_BOUND}x the bound on every network under every order (the table has them): ${leftOut.join(', ')}.`] : []),
      ],
    },
    data: { values: data },
    facet: { field: 'network', type: 'nominal', sort: networks, header: { title: null } },
    columns: Math.min(COLUMNS, networks.length),
    spec: {
      width: 120,
      height: { step: labelExpr ? 20 : 16 },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2, color: '#4c78a8' }, encoding: { y, x: { field: 'min', ...x }, x2: { field: 'max' } } },
        { mark: { type: 'tick', thickness: 2, size: 11, color: '#4c78a8' }, encoding: { y, x: { field: 'median', ...x } } },
        { mark: { type: 'point', filled: true, size: 30, color: '#e45756' }, encoding: { y, x: { field: 'table', ...x } } },
      ],
    },
    resolve: { scale: { x: 'shared' } },
    ...paperFigure('two-column', { view: { stroke: '#ddd' } }),
  } as VegaLiteSpec;
}
