import { arenaSize } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { operatorBreadths } from '../../core/profiles.ts';
import { FIGURE_WIDTH_PX, FONT_PX, PANEL_SPACING_PX, paperFigure } from './figure-sizes.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

export type MemoryUnit = 'MiB' | 'KiB' | 'bytes';

export const UNIT_BYTES: Readonly<Record<MemoryUnit, number>> = { MiB: 2 ** 20, KiB: 2 ** 10, bytes: 1 };

/** Vega's 'tableau10' colours, listed so that each label can take the ink that reads on its fill. */
const PALETTE = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac'];

function luminance(hex: string): number {
  const channel = (at: number): number => {
    const c = parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Black or white, whichever contrasts more with `fill` (WCAG contrast ratio). */
function inkOn(fill: string): string {
  const l = luminance(fill);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

const PICTURE_HEIGHT = 230;
/** Room the offset axis (labels and title) takes left of the first panel, for sizing the panels (renderChart fits the rest). */
const AXIS_ROOM = 62;
const LINE_COLOUR = '#222';

/** One rectangle of the picture (what the spec's data holds). */
export interface AllocationRectangle {
  /** Which panel (the index of its plan in the picture's list). */
  readonly panel: number;
  /** Index of the record in the problem (input order). */
  readonly index: number;
  readonly id: string;
  /** Bytes. */
  readonly size: number;
  /** Operators: the closed interval [first, last] drawn as [first, last + 1). */
  readonly x: number;
  readonly x2: number;
  /** Offsets in the picture's unit: [offset, offset + size). */
  readonly y: number;
  readonly y2: number;
  readonly fill: string;
  /** Drawn inside the rectangle when it fits, else ''. */
  readonly label: string;
  readonly labelColor: string;
  readonly labelX: number;
  readonly labelY: number;
}

/** One plan of the problem, drawn as one panel. */
export interface PicturePlan {
  /** What the panel's title calls the plan (the planner's title). */
  readonly planner: string;
  readonly offsets: readonly number[];
}

export interface AllocationPictureOptions {
  readonly title: string;
  /** Unit of the address axis; by default the largest in which the highest arena is 1 or more (`unitFor`). */
  readonly unit?: MemoryUnit;
  /** What a rectangle large enough for text shows: the record's index (default), its id, or nothing. */
  readonly labels?: 'index' | 'id' | 'none';
}

export function formatAmount(bytes: number, unit: MemoryUnit): string {
  if (unit === 'bytes') return `${bytes.toLocaleString('en-US')} bytes`;
  return `${(bytes / UNIT_BYTES[unit]).toFixed(2)} ${unit}`;
}

/** The largest unit in which `bytes` is 1 or more (MiB for networks, KiB or bytes for small traces). */
export function unitFor(bytes: number): MemoryUnit {
  return bytes >= UNIT_BYTES.MiB ? 'MiB' : bytes >= UNIT_BYTES.KiB ? 'KiB' : 'bytes';
}

/**
 * Live bytes at each operator (the sum of the sizes of the records live there) as the
 * corners of a step line: a point where the value changes, and one at the end of time.
 */
export function liveBytesSteps(problem: Problem): { operator: number; bytes: number }[] {
  const breadths = operatorBreadths(problem);
  const steps: { operator: number; bytes: number }[] = [];
  breadths.forEach((bytes, operator) => {
    if (steps.length === 0 || steps[steps.length - 1].bytes !== bytes) steps.push({ operator, bytes });
  });
  steps.push({ operator: Math.max(1, problem.operatorCount), bytes: steps.length > 0 ? steps[steps.length - 1].bytes : 0 });
  return steps;
}

function checkOffsets(problem: Problem, plan: PicturePlan): void {
  const { records } = problem;
  if (plan.offsets.length !== records.length) {
    throw new Error(`allocation picture of ${problem.name} (${plan.planner}): ${plan.offsets.length} offsets for ${records.length} records.`);
  }
  plan.offsets.forEach((offset, i) => {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new Error(`allocation picture of ${problem.name} (${plan.planner}): record ${i} (id ${JSON.stringify(records[i].id)}) has offset ${offset}; offsets are whole numbers of bytes >= 0.`);
    }
  });
}

/**
 * Time against address, as the paper's Figures 3-6 draw a plan, one panel per plan side by
 * side on one address axis: a rectangle per record over operators [first, last + 1) and
 * bytes [offset, offset + size) in a repeating categorical palette; the live bytes at each
 * operator as a step line (what any plan must hold at once, so the gap above it is what the
 * plan wastes); the lower bound, the peak of that line, dotted; the plan's footprint (the
 * top of its arena) dashed. Records of size 0 occupy no memory and are not drawn. A
 * two-column figure.
 */
export function allocationPictureSpec(problem: Problem, plans: readonly PicturePlan[], options: AllocationPictureOptions): VegaLiteSpec {
  if (plans.length === 0) throw new Error(`allocation picture of ${problem.name}: no plan to draw.`);
  plans.forEach((plan) => checkOffsets(problem, plan));
  const { records, operatorCount } = problem;
  const steps = liveBytesSteps(problem);
  const bound = Math.max(0, ...steps.map((s) => s.bytes));
  const footprints = plans.map((plan) => arenaSize(problem, plan.offsets));
  const unit = options.unit ?? unitFor(Math.max(bound, ...footprints));
  const scale = UNIT_BYTES[unit];
  // Room above the highest arena for the footprint's label.
  const top = Math.max(bound, ...footprints) > 0 ? (Math.max(bound, ...footprints) * 1.12) / scale : 1;
  const panelWidth = Math.floor((FIGURE_WIDTH_PX['two-column'] - AXIS_ROOM - (plans.length - 1) * PANEL_SPACING_PX) / plans.length);
  const pixelsPerOperator = panelWidth / Math.max(1, operatorCount);
  const pixelsPerUnit = PICTURE_HEIGHT / top;
  const labels = options.labels ?? 'index';

  const rectangles: AllocationRectangle[] = plans.flatMap((plan, panel) =>
    records.flatMap((record, index): AllocationRectangle[] => {
      if (record.size === 0) return [];
      const y = plan.offsets[index] / scale;
      const y2 = (plan.offsets[index] + record.size) / scale;
      const fill = PALETTE[index % PALETTE.length];
      const text = labels === 'none' ? '' : labels === 'id' ? record.id : String(index);
      // DejaVu Sans is about 0.64 em a character; keep 4 px of margin on each side.
      const fits = text.length * 0.64 * FONT_PX.text + 8 <= (record.last + 1 - record.first) * pixelsPerOperator && FONT_PX.text + 2 <= (y2 - y) * pixelsPerUnit;
      return [
        {
          panel,
          index,
          id: record.id,
          size: record.size,
          x: record.first,
          x2: record.last + 1,
          y,
          y2,
          fill,
          label: fits ? text : '',
          labelColor: inkOn(fill),
          labelX: (record.first + record.last + 1) / 2,
          labelY: (y + y2) / 2,
        },
      ];
    }),
  );

  const edge = rectangles.length > 300 * plans.length ? 0.25 : 0.6;
  const x = {
    type: 'quantitative',
    scale: { domain: [0, Math.max(1, operatorCount)], nice: false, zero: true },
    axis: { title: 'operator (execution order)', tickMinStep: 1, format: 'd', grid: false },
  };
  const addressAxis = { title: `address (${unit})`, grid: true, gridColor: '#eee', format: unit === 'bytes' ? ',d' : '~r' };
  const panel = (plan: PicturePlan, k: number) => {
    const y = { type: 'quantitative', scale: { domain: [0, top], nice: false, zero: true }, axis: k === 0 ? addressAxis : { title: null, labels: false, ticks: false, grid: true, gridColor: '#eee' } };
    const ratio = bound > 0 ? `, ${(footprints[k] / bound).toFixed(2)}x the bound` : '';
    return {
      title: { text: `${plan.planner}: ${formatAmount(footprints[k], unit)}${ratio}`, fontSize: FONT_PX.heading, anchor: 'start', offset: 4 },
      width: panelWidth,
      height: PICTURE_HEIGHT,
      layer: [
        {
          data: { values: rectangles.filter((r) => r.panel === k).map((r) => ({ ...r })) },
          layer: [
            {
              // aria: false: a screen reader gains nothing from hundreds of coordinate lists.
              mark: { type: 'rect', stroke: 'white', strokeWidth: edge, aria: false },
              encoding: { x: { field: 'x', ...x }, x2: { field: 'x2' }, y: { field: 'y', ...y }, y2: { field: 'y2' }, fill: { field: 'fill', type: 'nominal', scale: null, legend: null } },
            },
            {
              transform: [{ filter: "datum.label !== ''" }],
              mark: { type: 'text', align: 'center', baseline: 'middle', fontSize: FONT_PX.text, aria: false },
              encoding: {
                x: { field: 'labelX', ...x },
                y: { field: 'labelY', ...y },
                text: { field: 'label', type: 'nominal' },
                color: { field: 'labelColor', type: 'nominal', scale: null, legend: null },
              },
            },
          ],
        },
        {
          data: { values: steps.map((s) => ({ operator: s.operator, live: s.bytes / scale })) },
          mark: { type: 'line', interpolate: 'step-after', color: LINE_COLOUR, strokeWidth: 1.25 },
          encoding: { x: { field: 'operator', ...x }, y: { field: 'live', ...y } },
        },
        {
          data: { values: [{ at: bound / scale, label: `lower bound ${formatAmount(bound, unit)}` }] },
          layer: [
            { mark: { type: 'rule', color: LINE_COLOUR, strokeDash: [1.5, 2], strokeWidth: 1.25 }, encoding: { y: { field: 'at', ...y } } },
            {
              mark: { type: 'text', align: 'left', baseline: 'top', dx: 3, dy: 3, fontSize: FONT_PX.text, color: LINE_COLOUR },
              encoding: { x: { value: 0 }, y: { field: 'at', ...y }, text: { field: 'label', type: 'nominal' } },
            },
          ],
        },
        {
          data: { values: [{ at: footprints[k] / scale, label: `footprint ${formatAmount(footprints[k], unit)}` }] },
          layer: [
            { mark: { type: 'rule', color: LINE_COLOUR, strokeDash: [6, 4], strokeWidth: 1.25 }, encoding: { y: { field: 'at', ...y } } },
            {
              mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -3, dy: -3, fontSize: FONT_PX.text, color: LINE_COLOUR },
              encoding: { x: { value: 'width' }, y: { field: 'at', ...y }, text: { field: 'label', type: 'nominal' } },
            },
          ],
        },
      ],
    };
  };

  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle: `${records.length} tensors over ${operatorCount} operators. Rectangles: tensors at their addresses over their lifetimes; solid line: live bytes; dotted: the lower bound (their peak); dashed: the plan's footprint.`,
    },
    // Every panel has the same domains (one address axis, one time axis), so that heights compare.
    hconcat: plans.map(panel),
    ...paperFigure('two-column', { view: { stroke: '#888' } }),
  } as VegaLiteSpec;
}
