import type { CellResult } from '../../experiments/result.ts';
import { backendLabel } from '../backend-label.ts';
import { logTicks } from './axis-values.ts';
import { firstSeen, plannerScheme } from './footprint-chart.ts';
import { FONT_PX, paperFigure } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** Panels side by side (networks); the rest below. */
const COLUMNS = 3;
/** A panel's latencies spanning more than this factor are drawn on a log axis. */
const DECADE = 10;

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))} s` : `${Number(ms.toPrecision(3))} ms`;
}

/**
 * Latency against footprint, one panel per network with axes of its own (networks run from
 * milliseconds to seconds: none shares an axis with another): a point per planner and backend
 * at (planned MiB, median ms) with the 95% interval of the median as a vertical bar; the peer
 * runtime's median, where measured, as a dashed line labelled with its name and time. A panel
 * whose latencies span more than a decade (a CPU beside a software GPU adapter) has a log
 * latency axis, said in its title. Does less memory run faster (the paper's claim 7)? A
 * two-column figure.
 */
export function latencyChartSpec(results: readonly CellResult[], options: { title: string }): VegaLiteSpec {
  const measured = results.filter((r) => r.latencyMs !== undefined);
  if (measured.length === 0) throw new Error('latency chart: no cell carries a latency (run the experiment with an executing backend).');
  const networks = firstSeen(measured.map((r) => r.modelLabel));
  const planners = firstSeen(measured.map((r) => r.plannerTitle));
  const backends = firstSeen(measured.map(backendLabel));
  const points = measured.map((r) => ({
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
    // The runtime's name without its version (the subtitle has it), so that the label fits a panel.
    return withPeer?.peer
      ? [{ network, peer: withPeer.peer.latencyMs.median, runtime: withPeer.peer.runtime, label: `${withPeer.peer.runtime.split(' ')[0]} ${formatMs(withPeer.peer.latencyMs.median)}` }]
      : [];
  });
  const color = {
    field: 'planner',
    type: 'nominal',
    sort: planners,
    scale: { domain: planners, scheme: plannerScheme(planners.length) },
    legend: { title: 'planner', orient: 'bottom', direction: 'horizontal', columns: 1 },
  };
  const shape = {
    field: 'backend',
    type: 'nominal',
    sort: backends,
    scale: { domain: backends },
    legend: backends.length > 1 ? { title: 'backend', orient: 'bottom', direction: 'horizontal', columns: 1 } : null,
  };

  const panel = (network: string) => {
    const own = points.filter((p) => p.network === network);
    const peer = peers.find((p) => p.network === network);
    const times = [...own.flatMap((p) => [p.low, p.high, p.median]), ...(peer ? [peer.peer] : [])].filter((t) => t > 0);
    const log = times.length > 0 && Math.max(...times) / Math.min(...times) > DECADE;
    const yScale = log ? { type: 'log', nice: false, padding: 8 } : { zero: false, padding: 8 };
    const yAxis = { title: `median latency (ms${log ? ', log' : ''})`, grid: true, ...(log ? { values: logTicks(Math.min(...times), Math.max(...times)), format: ',~g' } : { tickCount: 5 }) };
    const mine = { filter: { field: 'network', equal: network } };
    const x = { field: 'mib', type: 'quantitative', title: 'planned memory (MiB)', scale: { zero: false, padding: 8 }, axis: { tickCount: 4, grid: true } };
    const layers: object[] = [
      {
        transform: [mine, { filter: 'isValid(datum.median)' }],
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, y: { field: 'low', type: 'quantitative', scale: yScale, axis: yAxis }, y2: { field: 'high' }, color },
      },
      {
        transform: [mine, { filter: 'isValid(datum.median)' }],
        mark: { type: 'point', filled: true, size: 45, opacity: 0.85 },
        // One shape per backend, so CPU, WebGPU and remote runs of a plan sit apart.
        encoding: { x, y: { field: 'median', type: 'quantitative', scale: yScale, axis: yAxis }, color, shape },
      },
    ];
    if (peer) {
      layers.push({
        transform: [mine, { filter: 'isValid(datum.peer)' }],
        layer: [
          { mark: { type: 'rule', strokeDash: [4, 3], color: '#555' }, encoding: { y: { field: 'peer', type: 'quantitative', scale: yScale, axis: yAxis } } },
          {
            mark: { type: 'text', align: 'left', baseline: 'bottom', dx: 3, dy: -2, fontSize: FONT_PX.text, color: '#333' },
            encoding: { x: { value: 0 }, y: { field: 'peer', type: 'quantitative', scale: yScale, axis: yAxis }, text: { field: 'label', type: 'nominal' } },
          },
        ],
      });
    }
    return { title: { text: network, fontSize: FONT_PX.heading }, width: 150, height: 130, layer: layers };
  };

  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle: `One panel per network, each with axes of its own. Points: medians, bars: their 95% intervals${peers.length > 0 ? `; dashed: ${firstSeen(peers.map((p) => p.runtime)).join(', ')}, the peer runtime, on the same network` : ''}.`,
    },
    data: { values: [...points, ...peers] },
    concat: networks.map(panel),
    columns: Math.min(COLUMNS, networks.length),
    // Networks run from milliseconds to seconds and from 1 to 600 MiB: no panel shares a scale.
    resolve: { scale: { x: 'independent', y: 'independent' } },
    ...paperFigure('two-column', { view: { stroke: '#ddd' } }),
  } as VegaLiteSpec;
}
