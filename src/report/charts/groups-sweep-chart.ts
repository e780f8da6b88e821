import type { GroupsCell } from '../../experiments/studies/parallel-groups.ts';
import { paperFigure } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

const MIB = 2 ** 20;

/** One network of the sweep: its points, and its sequential plan (the thesis' memory minimization) as the reference. */
export interface SweepSeries {
  readonly network: string;
  readonly points: readonly { groups: number; cell: GroupsCell }[];
  readonly reference: GroupsCell | undefined;
}

/**
 * Memory and latency against the number of groups per layer, a row per network (scales of
 * their own: the networks share none): left the planned intermediates (with the lower bound
 * under each schedule, dashed), right the median latency with its 95% interval; the
 * sequential plan as a grey rule in both, for what the groups cost or save against it. A
 * two-column figure.
 */
export function groupsSweepChartSpec(series: readonly SweepSeries[], options: { title: string }): VegaLiteSpec {
  const values = series.flatMap(({ network, points }) =>
    points
      .filter((p) => p.cell.report !== undefined)
      .map(({ groups, cell }) => ({
        network,
        groups,
        planned: cell.report!.footprint / MIB,
        bound: cell.bound / MIB,
        median: cell.report!.latencyMs.median,
        low: cell.report!.latencyMs.ci95[0],
        high: cell.report!.latencyMs.ci95[1],
      })),
  );
  if (values.length === 0) throw new Error('groups sweep chart: no point of the sweep has a measurement.');
  const drawn = series.filter((s) => values.some((v) => v.network === s.network));
  const rules = drawn.flatMap(({ network, reference }) =>
    reference?.report ? [{ network, rule: 'sequential', plannedRule: reference.report.footprint / MIB, medianRule: reference.report.latencyMs.median }] : [],
  );
  const x = { field: 'groups', type: 'ordinal', title: 'groups per layer', axis: { labelAngle: 0 } } as const;
  const row = (network: string) => {
    const mine = { filter: { field: 'network', equal: network } };
    const swept = [mine, { filter: 'isValid(datum.groups)' }];
    const rule = (field: string) => ({
      transform: [mine, { filter: 'isValid(datum.rule)' }],
      mark: { type: 'rule', color: '#999', strokeDash: [2, 2] },
      encoding: { y: { field, type: 'quantitative' } },
    });
    return {
      title: network,
      hconcat: [
        {
          width: 240,
          height: 140,
          layer: [
            {
              transform: swept,
              mark: { type: 'line', point: { color: '#4c78a8' }, color: '#4c78a8' },
              encoding: { x, y: { field: 'planned', type: 'quantitative', title: 'intermediates (MiB)', scale: { zero: true } } },
            },
            { transform: swept, mark: { type: 'line', color: '#4c78a8', strokeDash: [5, 3], opacity: 0.6 }, encoding: { x, y: { field: 'bound', type: 'quantitative' } } },
            rule('plannedRule'),
          ],
        },
        {
          width: 240,
          height: 140,
          layer: [
            { transform: swept, mark: { type: 'rule', color: '#f58518' }, encoding: { x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
            {
              transform: swept,
              mark: { type: 'line', point: { color: '#f58518' }, color: '#f58518' },
              encoding: { x, y: { field: 'median', type: 'quantitative', title: 'median latency (ms)', scale: { zero: false } } },
            },
            rule('medianRule'),
          ],
        },
      ],
    };
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle:
        'Left: the planned intermediates, dashed: the lower bound under each schedule; right: the median latency, bars: its 95% interval; grey dotted: the sequential plan (memory minimization).',
    },
    data: { values: [...values, ...rules] },
    vconcat: drawn.map((s) => row(s.network)),
    ...paperFigure('two-column'),
  } as VegaLiteSpec;
}
