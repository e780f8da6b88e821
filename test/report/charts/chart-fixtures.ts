import { makeProblem } from '../../../src/core/problem.ts';
import type { CellResult } from '../../../src/experiments/result.ts';
import type { GemmGrid } from '../../../src/experiments/studies/gemm-tiling-config.ts';
import type { GemmCell } from '../../../src/experiments/studies/gemm-tiling.ts';
import type { BudgetCell } from '../../../src/experiments/studies/flexnn-budget.ts';
import type { TieOrderStudy } from '../../../src/experiments/tie-orders.ts';
import { allocationPictureSpec } from '../../../src/report/charts/allocation-picture.ts';
import { budgetLatencyChartSpec } from '../../../src/report/charts/budget-latency-chart.ts';
import type { FigureSize } from '../../../src/report/charts/figure-sizes.ts';
import { footprintChartSpec } from '../../../src/report/charts/footprint-chart.ts';
import { gemmChartSpec } from '../../../src/report/charts/gemm-chart.ts';
import { groupsSweepChartSpec } from '../../../src/report/charts/groups-sweep-chart.ts';
import { latencyChartSpec } from '../../../src/report/charts/latency-chart.ts';
import { memoryChartSpec } from '../../../src/report/charts/memory-chart.ts';
import { qualityChartSpec } from '../../../src/report/charts/quality-chart.ts';
import type { VegaLiteSpec } from '../../../src/report/charts/render.ts';
import { scalingChartSpec } from '../../../src/report/charts/scaling-chart.ts';
import { tieOrderChartSpec } from '../../../src/report/charts/tie-order-chart.ts';
import { groupsCell } from '../groups-cells.ts';

/**
 * Data as wide as the project's real charts get: the zoo's six networks and longer names,
 * the paper's planners and the longest titles of the registry, latencies from 3 ms to 12 s,
 * footprints up to 11x the bound.
 */
const MiB = 2 ** 20;
const NETWORKS = ['MobileNet v1', 'MobileNet v2', 'DeepLab v3', 'Inception v3', 'GPT-2 (124M, 128 tokens)', 'BlazeFace'];
const PLANNERS = [
  'Greedy by Breadth',
  'Greedy by Size',
  'Greedy (in order)',
  'Min-cost Flow',
  'Strip Packing Best-fit',
  'Optimal (branch and bound)',
  'Best of Greedy by Size and Strip Packing Best-fit',
  'Strip Packing Best-fit, smaller first on equal lifetimes (variant)',
  'Equality',
  'Naive',
];
const id = (title: string): string => `offsets/${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;

/** Footprint over the bound of planner p on network n: 1.0 to 1.4, equality 2-4x, naive 4-11x. */
function ratio(p: number, n: number): number {
  if (PLANNERS[p] === 'Naive') return 4 + n * 1.4;
  if (PLANNERS[p] === 'Equality') return 2 + n * 0.4;
  return 1 + ((p * 7 + n * 3) % 9) / 20;
}

function cell(n: number, p: number, extra: Partial<CellResult> = {}): CellResult {
  const bound = (4 + n) * MiB;
  return {
    experiment: 'fixture',
    model: `zoo:n${n}`,
    modelLabel: NETWORKS[n],
    planner: id(PLANNERS[p]),
    plannerTitle: PLANNERS[p],
    plannerApproach: 'offsets',
    backend: 'cpu',
    records: 60 + n,
    operators: 70,
    footprint: Math.round(ratio(p, n) * bound),
    naive: 12 * bound,
    lowerBounds: { offsets: bound, sharedObjects: bound },
    ratioToLowerBound: Math.round(ratio(p, n) * bound) / bound,
    ratioToNaive: ratio(p, n) / 12,
    valid: true,
    timeMs: { runs: 3, median: 0.01 * 10 ** (p % 6), min: 0.01, max: 100, mad: 0.01 },
    ...extra,
  } as CellResult;
}

const everyCell = NETWORKS.flatMap((_, n) => PLANNERS.map((_, p) => cell(n, p)));

/** Latency: the CPU at 3 ms to 600 ms, a software GPU adapter ten to twenty times slower; onnxruntime beside the CPU. */
const latencyCells = NETWORKS.flatMap((_, n) =>
  [9, 1, 4].flatMap((p) =>
    ['cpu', 'webgpu'].map((backend) => {
      const median = (backend === 'cpu' ? 3 * 2.9 ** n : 60 * 2.9 ** n) * (1 + p / 40);
      return cell(n, p, {
        backend,
        latencyMs: { runs: 20, median, min: median * 0.9, max: median * 1.2, p90: median * 1.1, ci95: [median * 0.97, median * 1.04] },
        peer: { runtime: 'onnxruntime-node 1.30.0', latencyMs: { runs: 20, median: 2.5 * 2.9 ** n, min: 1, max: 1, p90: 1, ci95: [1, 1] }, ratio: 1.2, relativeError: 1e-7 },
        device: { backend },
      } as Partial<CellResult>);
    }),
  ),
);

const memoryCells = NETWORKS.flatMap((_, n) =>
  [9, 1, 6].map((p) => {
    const planned = cell(n, p).footprint;
    return cell(n, p, {
      memory: {
        planned,
        intermediates: planned,
        io: MiB,
        weights: 30 * n * MiB,
        scratch: 0,
        baselineRss: 100 * MiB,
        peakRss: 0,
        peakRssDelta: planned + (30 * n + 3) * MiB,
        rest: 2 * MiB,
        method: 'test',
      },
    } as Partial<CellResult>);
  }),
);

const study: TieOrderStudy = {
  experiment: 'table2',
  approach: 'offsets',
  seed: 1,
  drawCount: 200,
  cells: NETWORKS.flatMap((network, n) =>
    PLANNERS.map((title, p) => {
      const bound = 4 * MiB;
      const stable = ratio(p, n) * bound;
      return { model: `zoo:n${n}`, modelLabel: network, planner: id(title), plannerTitle: title, lowerBound: bound, stable, draws: [stable, stable * 1.1, stable * 1.02, stable * 1.3] };
    }),
  ),
};

const gemmGrid = { n: 4096, seed: 1, repetitions: 5, tiles: [256, 512, 1024, 4096], budgets: [16, 64, 256, 1024].map((b) => b * MiB), figure2Budget: 1024 * MiB, figure3Tile: 512 } as GemmGrid;
const gemmCells = gemmGrid.tiles.flatMap((tile) =>
  gemmGrid.budgets.flatMap((budget) =>
    (['dynamic', 'planned'] as const).map((scheduler) => {
      const wall = 4000 + (budget / MiB) * 3 + (scheduler === 'planned' ? -300 : 0) + tile;
      const peak = Math.min(budget, tile * tile * 12) + 20 * MiB;
      return {
        storage: 'native',
        tile,
        budget,
        scheduler,
        runs: [],
        wallMs: { median: wall, ci95: [wall - 50, wall + 60], runs: 5 },
        peakRss: { median: peak + 50 * MiB, ci95: [peak + 49 * MiB, peak + 51 * MiB], runs: 5 },
        peakRssDelta: { median: peak, ci95: [peak - MiB, peak + MiB], runs: 5 },
        computeMs: 3300,
        stallMs: 400,
      } as unknown as GemmCell;
    }),
  ),
);

const sweep = ['ResNeXt-50 (grouped)', 'GoogLeNet', 'InceptionV3'].map((network, n) => ({
  network,
  points: [1, 2, 4, 8].map((groups) => ({
    groups,
    cell: groupsCell({ network, schedule: `groups:${groups}`, backend: 'cpu-parallel', ms: 300 * (n + 1) + groups * 20, plannedMiB: 40 + groups * 10 }),
  })),
  reference: groupsCell({ network, row: 'minimization', schedule: 'sequential', backend: 'cpu', ms: 330 * (n + 1), plannedMiB: 42 }),
}));

/** A measured cell of the FlexNN study, as the study stores it (memory: its peak alone). */
export const measuredBudgetCell = (network: string, method: BudgetCell['method'], budgetMiB: number | null, ms: number, peakMiB: number): BudgetCell => ({
  network,
  source: 'zoo:x',
  method,
  part: budgetMiB === null ? 'baseline' : 'budgets',
  budget: budgetMiB === null ? null : budgetMiB * MiB,
  planner: 'p',
  feasible: true,
  meanLatencyMs: ms,
  memory: { planned: 0, intermediates: 0, io: 0, weights: 0, scratch: 0, baselineRss: 0, peakRss: peakMiB * MiB, peakRssDelta: peakMiB * MiB, rest: 0, method: 'test' },
});

const budgetCells: BudgetCell[] = ['VGG-19', 'ResNet-152', 'SqueezeNet 1.1', 'MobileNet v2', 'ViT-B/16 (384x384)', 'GPT-2 (124M, 128 tokens)'].flatMap((network, n) =>
  (['flexnn', 'flexnn-no-preload', 'flexnn-no-planning', 'on-demand', 'default'] as const).flatMap((method) =>
    (method === 'default' || method === 'on-demand' ? [null] : [8, 32, 128, 512]).map((budgetMiB) =>
      // SqueezeNet at 60 ms, ViT at 7 s; small budgets ten times slower than large ones.
      measuredBudgetCell(network, method, budgetMiB, 60 * 3 ** n * (budgetMiB === null ? 1 : 1 + 64 / budgetMiB), budgetMiB ?? (method === 'default' ? 900 : 40)),
    ),
  ),
);

const PROBLEM = makeProblem(
  'deeplab-v3',
  Array.from({ length: 60 }, (_, k) => ({ id: `t${k}`, size: ((k * 37) % 11) * 65536 + 4096, first: k, last: k + 1 + (k % 4) })),
);
const stacked = (gap: number): number[] => {
  const tops = new Map<number, number>();
  return PROBLEM.records.map((r) => {
    let offset = 0;
    for (let op = r.first; op <= r.last; op++) offset = Math.max(offset, tops.get(op) ?? 0);
    for (let op = r.first; op <= r.last; op++) tops.set(op, offset + r.size + gap);
    return offset;
  });
};

/** One spec per chart builder, with the figure size it is built for. */
export const FIGURES: readonly { readonly name: string; readonly size: FigureSize; readonly spec: VegaLiteSpec }[] = [
  { name: 'footprint', size: 'two-column', spec: footprintChartSpec(everyCell, { title: 'Table 2: Offset Calculation (CPU memory, GPU buffers): footprint over the lower bound' }) },
  { name: 'tie-order', size: 'two-column', spec: tieOrderChartSpec(study, { title: 'Table 2: Offset Calculation (CPU memory, GPU buffers): footprint under random tie orders' }) },
  { name: 'latency', size: 'two-column', spec: latencyChartSpec(latencyCells, { title: 'Latency in a browser, beside WebGPU on Dawn and the CPU: latency against planned memory' }) },
  { name: 'memory', size: 'two-column', spec: memoryChartSpec(memoryCells, { title: 'Memory on the CPU backend: where memory goes' }) },
  { name: 'quality', size: 'two-column', spec: qualityChartSpec(everyCell, { title: 'Quality against planning time', approach: 'offsets', timeLimitMs: 10_000 }) },
  {
    name: 'scaling',
    size: 'one-column',
    spec: scalingChartSpec(
      everyCell.map((c, k) => ({ planner: c.planner, records: 10 ** (1 + (k % 5)), medianMs: c.timeMs.median * (1 + (k % 5)), instance: c.modelLabel })),
      { title: 'Planning time against problem size' },
    ),
  },
  { name: 'gemm', size: 'two-column', spec: gemmChartSpec(gemmCells, gemmGrid, 'native', 3, { title: 'Figure 3 on this machine: time and memory against the budget' }) },
  { name: 'groups-sweep', size: 'two-column', spec: groupsSweepChartSpec(sweep, { title: 'Memory and latency against groups per layer' }) },
  { name: 'budget-latency', size: 'two-column', spec: budgetLatencyChartSpec(budgetCells, { title: "Latency against measured peak memory (FlexNN, Figure 10): this machine's disk" }) },
  {
    name: 'allocation-picture',
    size: 'two-column',
    spec: allocationPictureSpec(
      PROBLEM,
      [
        { planner: 'Greedy by Size', offsets: stacked(0) },
        { planner: 'Strip Packing Best-fit', offsets: stacked(65536) },
      ],
      { title: 'deeplab-v3: tensors in memory over time' },
    ),
  },
];
