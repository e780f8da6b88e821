import { describe, expect, it } from 'vitest';
import { makeProblem } from '../../../src/core/problem.ts';
import { allocationPictureSpec, liveBytesSteps, unitFor } from '../../../src/report/charts/allocation-picture.ts';
import { expectCompiles } from './spec-data.ts';

const KiB = 1024;
// Closed intervals [first, last]; a chain where t0 and t2 share memory.
const PROBLEM = makeProblem('chain', [
  { id: 't0', size: 4 * KiB, first: 0, last: 1 },
  { id: 't1', size: 2 * KiB, first: 1, last: 2 },
  { id: 't2', size: 4 * KiB, first: 2, last: 3 },
  { id: 't3', size: 1 * KiB, first: 3, last: 3 },
]);
const PACKED = { planner: 'Packed', offsets: [0, 4 * KiB, 0, 4 * KiB] };
// Every record at its own address: an arena of 11 KiB.
const SPREAD = { planner: 'Spread', offsets: [0, 4 * KiB, 6 * KiB, 10 * KiB] };

type Row = Record<string, unknown>;
type View = { mark?: { type: string }; data?: { values: Row[] }; layer?: View[]; encoding?: Record<string, { field?: string; axis?: { title?: string | null } | null }>; title?: { text: string } };

const panelsOf = (spec: object): View[] => (spec as { hconcat: View[] }).hconcat;
/** Every layer under a view, depth first. */
const layersOf = (view: View): View[] => (view.layer ?? []).flatMap((layer) => [layer, ...layersOf(layer)]);
const markOf = (view: View, type: string): View[] => layersOf(view).filter((layer) => layer.mark?.type === type);
const rectanglesOf = (panel: View): Row[] => layersOf(panel).find((layer) => layer.data?.values.some((row) => 'x2' in row))!.data!.values;

describe('allocationPictureSpec', () => {
  const spec = allocationPictureSpec(PROBLEM, [PACKED, SPREAD], { title: 'Chain', unit: 'KiB' });
  const panels = panelsOf(spec);

  it('compiles with vega-lite without warnings, one plan or several', () => {
    expectCompiles(spec);
    expectCompiles(allocationPictureSpec(PROBLEM, [PACKED], { title: 'Chain' }));
  });

  it('draws the plans side by side, a panel each titled with its planner, footprint and ratio to the bound', () => {
    expect(panels).toHaveLength(2);
    expect(panels.map((p) => p.title?.text)).toEqual(['Packed: 6.00 KiB, 1.00x the bound', 'Spread: 11.00 KiB, 1.83x the bound']);
    expect((spec as { usermeta?: unknown }).usermeta).toEqual({ figure: 'two-column' });
  });

  it('holds one rectangle per tensor over [first, last + 1) x [offset, offset + size) in each panel', () => {
    expect(rectanglesOf(panels[0]).map((row) => [row.id, row.x, row.x2, row.y, row.y2])).toEqual([
      ['t0', 0, 2, 0, 4],
      ['t1', 1, 3, 4, 6],
      ['t2', 2, 4, 0, 4],
      ['t3', 3, 4, 4, 5],
    ]);
    expect(rectanglesOf(panels[1]).map((row) => [row.y, row.y2])).toEqual([
      [0, 4],
      [4, 6],
      [6, 10],
      [10, 11],
    ]);
    expect(markOf(panels[0], 'rect')[0].mark).toMatchObject({ type: 'rect', stroke: 'white' });
  });

  it('labels the address axis once, on the first panel', () => {
    const axes = panels.map((panel) => markOf(panel, 'rect')[0].encoding!.y.axis);
    expect(axes[0]?.title).toBe('address (KiB)');
    expect(axes[1]).toMatchObject({ title: null, labels: false });
  });

  it('draws the live bytes as a step line, and the lower bound (its peak) and the footprint as labelled rules', () => {
    const line = markOf(panels[0], 'line')[0];
    expect(line.mark).toMatchObject({ interpolate: 'step-after' });
    // Live: 4, 6, 6, 5 KiB at operators 0-3.
    expect(line.data!.values).toEqual([
      { operator: 0, live: 4 },
      { operator: 1, live: 6 },
      { operator: 3, live: 5 },
      { operator: 4, live: 5 },
    ]);
    const ruled = layersOf(panels[1]).flatMap((layer) => (layer.data?.values.length === 1 && 'at' in layer.data.values[0] ? [layer.data.values[0]] : []));
    expect(ruled).toEqual([
      { at: 6, label: 'lower bound 6.00 KiB' },
      { at: 11, label: 'footprint 11.00 KiB' },
    ]);
  });

  it('scales to the unit asked for, by default the largest in which the arena is 1 or more', () => {
    const mib = rectanglesOf(panelsOf(allocationPictureSpec(PROBLEM, [PACKED], { title: 'Chain', unit: 'MiB' }))[0]);
    expect(mib[1].y2).toBe((6 * KiB) / 2 ** 20);
    const byDefault = panelsOf(allocationPictureSpec(PROBLEM, [PACKED], { title: 'Chain' }))[0];
    expect(rectanglesOf(byDefault)[1].y2).toBe(6);
    expect(markOf(byDefault, 'rect')[0].encoding!.y.axis?.title).toBe('address (KiB)');
    expect([unitFor(2 ** 20), unitFor(2 ** 20 - 1), unitFor(1023)]).toEqual(['MiB', 'KiB', 'bytes']);
    const bytes = rectanglesOf(panelsOf(allocationPictureSpec(PROBLEM, [PACKED], { title: 'Chain', unit: 'bytes' }))[0]);
    expect([bytes[1].y, bytes[1].y2]).toEqual([4 * KiB, 6 * KiB]);
  });

  it('leaves out records of size 0 and refuses plans that do not fit the problem', () => {
    const withEmpty = makeProblem('empty', [...PROBLEM.records, { id: 'e', size: 0, first: 0, last: 3 }]);
    expect(rectanglesOf(panelsOf(allocationPictureSpec(withEmpty, [{ planner: 'p', offsets: [...PACKED.offsets, 0] }], { title: 't' }))[0])).toHaveLength(4);
    expect(() => allocationPictureSpec(PROBLEM, [{ planner: 'p', offsets: [0, 0] }], { title: 't' })).toThrow(/\(p\): 2 offsets for 4 records/);
    expect(() => allocationPictureSpec(PROBLEM, [{ planner: 'p', offsets: [0, -1, 0, 0] }], { title: 't' })).toThrow(/record 1 .* offset -1/);
    expect(() => allocationPictureSpec(PROBLEM, [], { title: 't' })).toThrow(/no plan to draw/);
  });
});

describe('liveBytesSteps', () => {
  it('gives a corner where the live bytes change and one at the end of time; its peak is the lower bound', () => {
    const steps = liveBytesSteps(PROBLEM);
    expect(steps).toEqual([
      { operator: 0, bytes: 4 * KiB },
      { operator: 1, bytes: 6 * KiB },
      { operator: 3, bytes: 5 * KiB },
      { operator: 4, bytes: 5 * KiB },
    ]);
    expect(Math.max(...steps.map((s) => s.bytes))).toBe(6 * KiB);
  });
});
