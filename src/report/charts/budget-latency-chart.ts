import type { BudgetCell, Method } from '../../experiments/studies/flexnn-budget.ts';
import { logAxisValues } from './axis-values.ts';
import { FONT_PX, paperFigure } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** Each method's look, in legend order: FlexNN in red, its ablations lighter, the baselines in blue and grey. */
const LOOK: readonly { readonly method: Method; readonly label: string; readonly colour: string }[] = [
  { method: 'flexnn', label: 'FlexNN', colour: '#e45756' },
  { method: 'flexnn-no-preload', label: 'FlexNN w/o preload', colour: '#ff9d98' },
  { method: 'flexnn-no-planning', label: 'FlexNN w/o planning', colour: '#f58518' },
  { method: 'on-demand', label: 'on-demand', colour: '#4c78a8' },
  { method: 'default', label: 'default (all weights resident)', colour: '#54a24b' },
];

export function methodLabel(method: Method): string {
  return LOOK.find((l) => l.method === method)?.label ?? method;
}

/** Panels side by side (networks); the rest below. */
const COLUMNS = 3;
/** A panel's latencies spanning more than this factor are drawn on a log axis. */
const DECADE = 10;

/**
 * FlexNN's Figure 10 on this machine: per network (a panel with axes of its own: networks
 * run from tens of milliseconds to seconds) mean latency against the measured peak over the
 * baseline (MiB, log scale: budgets span decades), one line per method through its budgets
 * in order (a baseline, with no budget, is one point). A panel whose latencies span more than
 * a decade has a log latency axis too. Infeasible budgets have no point; the tables say where
 * they are. A two-column figure.
 */
export function budgetLatencyChartSpec(cells: readonly BudgetCell[], options: { title: string }): VegaLiteSpec {
  const MIB = 2 ** 20;
  const points = cells
    .filter((c) => c.feasible && c.memory !== undefined && c.meanLatencyMs !== undefined)
    .map((c) => ({
      network: c.network,
      method: methodLabel(c.method),
      budget: c.budget === null ? 'none' : `${(c.budget / MIB).toFixed(0)} MiB`,
      order: c.budget ?? 0,
      peak: Math.max(0.01, (c.memory as NonNullable<BudgetCell['memory']>).peakRssDelta / MIB),
      latency: c.meanLatencyMs as number,
    }));
  if (points.length === 0) throw new Error('budget chart: no feasible cell has a measurement.');
  const networks = [...new Set(points.map((p) => p.network))];
  const present = LOOK.filter((l) => points.some((p) => p.method === l.label));
  const color = {
    field: 'method',
    type: 'nominal',
    scale: { domain: present.map((l) => l.label), range: present.map((l) => l.colour) },
    legend: { title: null, orient: 'bottom', direction: 'horizontal', columns: 3 },
  };
  const panel = (network: string) => {
    const own = points.filter((p) => p.network === network);
    const peaks = own.map((p) => p.peak);
    const latencies = own.map((p) => p.latency);
    const logLatency = Math.max(...latencies) / Math.min(...latencies) > DECADE;
    const encoding = {
      x: {
        field: 'peak',
        type: 'quantitative',
        scale: { type: 'log', nice: false, padding: 8 },
        axis: { title: 'peak over baseline (MiB, log)', grid: true, format: ',~g', ...logAxisValues(peaks) },
      },
      y: {
        field: 'latency',
        type: 'quantitative',
        scale: logLatency ? { type: 'log', nice: false, padding: 8 } : { zero: false, padding: 8 },
        axis: { title: `mean latency (ms${logLatency ? ', log' : ''})`, grid: true, ...(logLatency ? { format: ',~g', ...logAxisValues(latencies) } : { tickCount: 5 }) },
      },
      color,
    };
    return {
      title: { text: network, fontSize: FONT_PX.heading },
      transform: [{ filter: { field: 'network', equal: network } }],
      width: 150,
      height: 130,
      layer: [
        { mark: { type: 'line', point: false }, encoding: { ...encoding, order: { field: 'order', type: 'quantitative' } } },
        { mark: { type: 'point', filled: true, size: 35 }, encoding },
      ],
    };
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, subtitle: "One panel per network, each with axes of its own; one point per budget (lines through a method's budgets); a baseline is one point." },
    data: { values: points },
    concat: networks.map(panel),
    columns: Math.min(COLUMNS, networks.length),
    resolve: { scale: { x: 'independent', y: 'independent' } },
    ...paperFigure('two-column', { view: { stroke: '#ddd' } }),
  } as VegaLiteSpec;
}
