import type { CellResult } from '../../experiments/result.ts';
import { backendLabel } from '../backend-label.ts';
import { firstSeen, plannerScheme } from './footprint-chart.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

/**
 * Latency against footprint, one panel per network: a point per planner at (planned MiB,
 * median ms) with the 95% interval of the median as a vertical bar; the peer runtime's
 * median, where measured, as a dashed line. Does less memory run faster (the paper's
 * claim 7)?
 */
export function latencyChartSpec(results: readonly CellResult[], options: { title: string }): VegaLiteSpec {
  const measured = results.filter((r) => r.latencyMs !== undefined);
  const networks = firstSeen(measured.map((r) => r.modelLabel));
  const planners = firstSeen(measured.map((r) => r.plannerTitle));
  const values = measured.map((r) => ({
    network: r.modelLabel,
    planner: r.plannerTitle,
    backend: backendLabel(r),
    mib: r.footprint / 2 ** 20,
    median: r.latencyMs!.median,
    low: r.latencyMs!.ci95[0],
    high: r.latencyMs!.ci95[1],
  }));
  const peers = networks.flatMap((network) => {
    const withPeer = measured.find((r) => r.modelLabel === network && r.peer !== undefined);
    return withPeer?.peer ? [{ network, median: withPeer.peer.latencyMs.median, runtime: withPeer.peer.runtime }] : [];
  });
  const color = { field: 'planner', type: 'nominal', sort: planners, scale: { scheme: plannerScheme(planners.length) }, title: 'planner' } as const;
  const x = { field: 'mib', type: 'quantitative', title: 'planned memory (MiB)', scale: { zero: false } } as const;
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: options.title, anchor: 'start' },
    data: { values: [...values.map((v) => ({ ...v, kind: 'ours' })), ...peers.map((p) => ({ ...p, kind: 'peer' }))] },
    facet: { field: 'network', type: 'nominal', sort: networks, title: null, header: { labelFontSize: 13, labelFontWeight: 'bold' } },
    columns: 3,
    spec: {
      width: 220,
      height: 170,
      layer: [
        { transform: [{ filter: "datum.kind === 'ours'" }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color } },
        {
          transform: [{ filter: "datum.kind === 'ours'" }],
          mark: { type: 'point', filled: true, size: 70 },
          // One shape per backend, so CPU, WebGPU and remote runs of a plan sit apart.
          encoding: { x, y: { field: 'median', type: 'quantitative', title: 'latency, median (ms)', scale: { zero: false } }, color, shape: { field: 'backend', type: 'nominal', title: 'backend' } },
        },
        { transform: [{ filter: "datum.kind === 'peer'" }], mark: { type: 'rule', strokeDash: [4, 3], color: '#555' }, encoding: { y: { field: 'median', type: 'quantitative' } } },
      ],
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
  } as VegaLiteSpec;
}
