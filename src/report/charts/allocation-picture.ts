import { arenaSize } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './render.ts';

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

const PICTURE_WIDTH = 720;
const PICTURE_HEIGHT = 400;
const LABEL_FONT_SIZE = 10;

/** One rectangle of the picture (what the spec's data holds). */
export interface AllocationRectangle {
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

export interface AllocationPictureOptions {
  readonly title: string;
  /** Unit of the memory axis; MiB (2^20 bytes) by default. */
  readonly unit?: MemoryUnit;
  /** What a rectangle large enough for text shows: the record's index (default), its id, or nothing. */
  readonly labels?: 'index' | 'id' | 'none';
}

export function formatAmount(bytes: number, unit: MemoryUnit): string {
  if (unit === 'bytes') return `${bytes.toLocaleString('en-US')} bytes`;
  return `${(bytes / UNIT_BYTES[unit]).toFixed(2)} ${unit}`;
}

/**
 * Time against memory, as the paper's Figures 3-6 draw a plan: one rectangle per
 * record over operators [first, last + 1) and bytes [offset, offset + size), in a
 * repeating categorical palette with thin white edges, and a dashed rule at the top
 * of the arena labelled with the footprint. Records of size 0 occupy no memory and
 * are not drawn.
 */
export function allocationPictureSpec(problem: Problem, offsets: readonly number[], options: AllocationPictureOptions): VegaLiteSpec {
  const { records, operatorCount } = problem;
  if (offsets.length !== records.length) {
    throw new Error(`allocation picture of ${problem.name}: ${offsets.length} offsets for ${records.length} records.`);
  }
  offsets.forEach((offset, i) => {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new Error(`allocation picture of ${problem.name}: record ${i} (id ${JSON.stringify(records[i].id)}) has offset ${offset}; offsets are whole numbers of bytes >= 0.`);
    }
  });
  const unit = options.unit ?? 'MiB';
  const scale = UNIT_BYTES[unit];
  const footprint = arenaSize(problem, offsets);
  // Room above the arena for the footprint's label.
  const top = footprint > 0 ? (footprint * 1.08) / scale : 1;
  const pixelsPerOperator = PICTURE_WIDTH / Math.max(1, operatorCount);
  const pixelsPerUnit = PICTURE_HEIGHT / top;
  const labels = options.labels ?? 'index';

  const rectangles: AllocationRectangle[] = [];
  records.forEach((record, index) => {
    if (record.size === 0) return;
    const y = offsets[index] / scale;
    const y2 = (offsets[index] + record.size) / scale;
    const fill = PALETTE[index % PALETTE.length];
    const text = labels === 'none' ? '' : labels === 'id' ? record.id : String(index);
    // DejaVu Sans is about 0.64 em a character; keep 2 px of margin on each side.
    const fits = text.length * 0.64 * LABEL_FONT_SIZE + 4 <= (record.last + 1 - record.first) * pixelsPerOperator && LABEL_FONT_SIZE + 2 <= (y2 - y) * pixelsPerUnit;
    rectangles.push({
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
    });
  });

  const footprintLabel = `footprint ${formatAmount(footprint, unit)}`;
  const edge = rectangles.length > 300 ? 0.25 : 0.75;
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: options.title,
      subtitle: `${problem.name}: ${records.length} tensors over ${operatorCount} operators`,
      fontSize: 15,
      subtitleFontSize: 11,
      subtitleColor: '#444',
      anchor: 'start',
      offset: 10,
    },
    width: PICTURE_WIDTH,
    height: PICTURE_HEIGHT,
    data: { values: rectangles.map((r) => ({ ...r })) },
    encoding: {
      x: {
        type: 'quantitative',
        scale: { domain: [0, Math.max(1, operatorCount)], nice: false, zero: true },
        axis: { title: 'operator (execution order)', tickMinStep: 1, format: 'd', grid: false },
      },
      y: {
        type: 'quantitative',
        scale: { domain: [0, top], nice: false, zero: true },
        axis: { title: `offset (${unit})`, grid: true, gridColor: '#eee', format: unit === 'bytes' ? ',d' : '~r' },
      },
    },
    layer: [
      {
        // aria: false: a screen reader gains nothing from hundreds of coordinate lists.
        mark: { type: 'rect', stroke: 'white', strokeWidth: edge, aria: false },
        encoding: {
          x: { field: 'x', type: 'quantitative' },
          x2: { field: 'x2' },
          y: { field: 'y', type: 'quantitative' },
          y2: { field: 'y2' },
          fill: { field: 'fill', type: 'nominal', scale: null, legend: null },
        },
      },
      {
        transform: [{ filter: "datum.label !== ''" }],
        mark: { type: 'text', align: 'center', baseline: 'middle', fontSize: LABEL_FONT_SIZE, aria: false },
        encoding: {
          x: { field: 'labelX', type: 'quantitative' },
          y: { field: 'labelY', type: 'quantitative' },
          text: { field: 'label', type: 'nominal' },
          color: { field: 'labelColor', type: 'nominal', scale: null, legend: null },
        },
      },
      {
        data: { values: [{ top: footprint / scale, label: footprintLabel }] },
        layer: [
          {
            mark: { type: 'rule', color: '#222', strokeDash: [6, 4], strokeWidth: 1.5 },
            encoding: { y: { field: 'top', type: 'quantitative' } },
          },
          {
            mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -4, dy: -3, fontSize: 12, color: '#222' },
            encoding: {
              x: { value: 'width' },
              y: { field: 'top', type: 'quantitative' },
              text: { field: 'label', type: 'nominal' },
            },
          },
        ],
      },
    ],
    config: { view: { stroke: '#888' }, axis: { labelFontSize: 11, titleFontSize: 12 } },
  } as VegaLiteSpec;
}
