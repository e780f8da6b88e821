import type { BudgetCell, Method } from '../../experiments/studies/flexnn-budget.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

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

/**
 * FlexNN's Figure 10 on this machine: per network (a panel), mean latency against the
 * measured peak over the baseline (MiB, log scale), one line per method through its
 * budgets in order (a baseline, with no budget, is one point). Infeasible budgets have no
 * point; the tables say where they are.
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
  const encoding = {
    x: { field: 'peak', type: 'quantitative', scale: { type: 'log' }, axis: { title: 'measured peak over the baseline (MiB, log)', grid: true } },
    y: { field: 'latency', type: 'quantitative', scale: { zero: false }, axis: { title: 'mean latency (ms)', grid: true } },
    color: {
      field: 'method',
      type: 'nominal',
      scale: { domain: present.map((l) => l.label), range: present.map((l) => l.colour) },
      legend: { title: null, orient: 'bottom', direction: 'horizontal' },
    },
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, subtitle: "one point per budget (lines through a method's budgets); a baseline is one point", fontSize: 15, anchor: 'start', offset: 12 },
    data: { values: points },
    facet: { field: 'network', type: 'nominal', sort: networks, columns: 2, header: { title: null, labelFontSize: 12 } },
    spec: {
      width: 300,
      height: 200,
      layer: [
        { mark: { type: 'line', point: false }, encoding: { ...encoding, order: { field: 'order', type: 'quantitative' } } },
        {
          mark: { type: 'point', filled: true, size: 50 },
          encoding: { ...encoding, tooltip: [{ field: 'method' }, { field: 'budget' }, { field: 'peak', format: '.1f' }, { field: 'latency', format: '.1f' }] },
        },
      ],
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    config: { view: { stroke: '#ddd' }, axis: { labelFontSize: 11, titleFontSize: 12 } },
  } as VegaLiteSpec;
}
