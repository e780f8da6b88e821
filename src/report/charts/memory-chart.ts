import type { CellResult } from '../../experiments/result.ts';
import { measuredCells } from '../memory-table.ts';
import { firstSeen } from './footprint-chart.ts';
import { paperFigure, wrappedLabelExpr, wrappedLabelOffset } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** Where the planners' names are wrapped (characters). */
const LABEL_CHARS = 36;

const PARTS = ['intermediates', 'io', 'weights', 'scratch', 'rest'] as const;
const COLOURS = ['#4c78a8', '#72b7b2', '#f58518', '#b279a2', '#bab0ac'];

/**
 * Where memory goes: per network (a panel) and planner (a bar), the measured peak over the
 * baseline stacked from what the backend allocated (intermediates, graph I/O, weights,
 * scratch) and the rest none of them accounts for; a black tick marks the planned
 * footprint. A negative rest (the runtime gave back more than it took) is drawn as 0. A
 * two-column figure.
 */
export function memoryChartSpec(results: readonly CellResult[], options: { title: string }): VegaLiteSpec {
  const cells = measuredCells(results);
  if (cells.length === 0) throw new Error('memory chart: no cell carries measured memory (run the experiment with an executing backend).');
  const MIB = 2 ** 20;
  const planner = (c: CellResult): string => (new Set(cells.map((x) => x.backend)).size > 1 ? `${c.plannerTitle} (${c.backend})` : c.plannerTitle);
  const bars = cells.flatMap((c) => PARTS.map((part, k) => ({ network: c.modelLabel, planner: planner(c), part, order: k, mib: Math.max(0, c.memory[part]) / MIB })));
  const ticks = cells.map((c) => ({ network: c.modelLabel, planner: planner(c), planned: c.memory.planned / MIB }));
  const planners = firstSeen(bars.map((b) => b.planner));
  const labelExpr = wrappedLabelExpr(planners, LABEL_CHARS);
  const labelOffset = wrappedLabelOffset(planners, LABEL_CHARS);
  const y = { field: 'planner', type: 'nominal', sort: planners, axis: { title: null, ...(labelExpr ? { labelExpr } : {}), ...(labelOffset ? { labelOffset } : {}) } };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, subtitle: 'Bars: the measured peak over the baseline, by what it holds; tick: the planned footprint (MiB). Each network has a scale of its own.' },
    facet: {
      row: {
        field: 'network',
        type: 'nominal',
        sort: firstSeen(bars.map((b) => b.network)),
        header: { title: null, labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelFontWeight: 'bold' },
      },
    },
    data: { values: [...bars, ...ticks] },
    spec: {
      width: 420,
      height: { step: labelExpr ? 22 : 14 },
      layer: [
        {
          transform: [{ filter: 'isValid(datum.part)' }],
          mark: { type: 'bar' },
          encoding: {
            y,
            x: { field: 'mib', type: 'quantitative', stack: 'zero', axis: { title: 'MiB', grid: true, tickCount: 6 } },
            color: { field: 'part', type: 'nominal', sort: [...PARTS], scale: { domain: [...PARTS], range: COLOURS }, legend: { title: null, orient: 'bottom', direction: 'horizontal' } },
            order: { field: 'order', type: 'quantitative' },
          },
        },
        {
          transform: [{ filter: 'isValid(datum.planned)' }],
          mark: { type: 'tick', color: 'black', thickness: 2, size: 12 },
          encoding: { y, x: { field: 'planned', type: 'quantitative' } },
        },
      ],
    },
    // Networks differ by two decades (BlazeFace 2 MiB, VGG-19 600 MiB): each panel its own scale.
    resolve: { scale: { x: 'independent' } },
    ...paperFigure('two-column', { view: { stroke: '#ddd' } }),
  } as VegaLiteSpec;
}
