import { describe, expect, it } from 'vitest';
import { makeProblem } from '../../../src/core/problem.ts';
import { allocationPictureSpec } from '../../../src/report/charts/allocation-picture.ts';
import { expectCompiles, rowsOf } from './spec-data.ts';

const KiB = 1024;
// Closed intervals [first, last]; a chain where t0 and t2 share memory.
const PROBLEM = makeProblem('chain', [
  { id: 't0', size: 4 * KiB, first: 0, last: 1 },
  { id: 't1', size: 2 * KiB, first: 1, last: 2 },
  { id: 't2', size: 4 * KiB, first: 2, last: 3 },
  { id: 't3', size: 1 * KiB, first: 3, last: 3 },
]);
const OFFSETS = [0, 4 * KiB, 0, 4 * KiB];

type Layer = { mark: { type: string }; data?: { values: Record<string, unknown>[] }; layer?: Layer[]; encoding: Record<string, { field?: string }> };

describe('allocationPictureSpec', () => {
  const spec = allocationPictureSpec(PROBLEM, OFFSETS, { title: 'Chain', unit: 'KiB' });
  const layers = (spec as unknown as { layer: Layer[] }).layer;

  it('compiles with vega-lite without warnings', () => {
    expectCompiles(spec);
    expectCompiles(allocationPictureSpec(PROBLEM, OFFSETS, { title: 'Chain' }));
  });

  it('holds one rectangle per tensor over [first, last + 1) x [offset, offset + size)', () => {
    expect(rowsOf(spec).map((row) => [row.id, row.x, row.x2, row.y, row.y2])).toEqual([
      ['t0', 0, 2, 0, 4],
      ['t1', 1, 3, 4, 6],
      ['t2', 2, 4, 0, 4],
      ['t3', 3, 4, 4, 5],
    ]);
    const rect = layers[0];
    expect(rect.mark).toMatchObject({ type: 'rect', stroke: 'white' });
    expect([rect.encoding.x.field, rect.encoding.x2.field, rect.encoding.y.field, rect.encoding.y2.field]).toEqual(['x', 'x2', 'y', 'y2']);
  });

  it('colours neighbours apart and labels with the record index', () => {
    const rows = rowsOf(spec);
    expect(new Set(rows.map((row) => row.fill)).size).toBe(4);
    expect(rows.map((row) => row.label)).toEqual(['0', '1', '2', '3']);
  });

  it('draws a dashed rule at the arena top labelled with the footprint', () => {
    const top = layers[2];
    expect(top.data?.values).toEqual([{ top: 6, label: 'footprint 6.00 KiB' }]);
    expect(top.layer![0].mark).toMatchObject({ type: 'rule', strokeDash: [6, 4] });
  });

  it('scales to the unit asked for (MiB by default, bytes)', () => {
    const mib = rowsOf(allocationPictureSpec(PROBLEM, OFFSETS, { title: 'Chain' }));
    expect(mib[1].y2).toBe((6 * KiB) / 2 ** 20);
    const bytes = rowsOf(allocationPictureSpec(PROBLEM, OFFSETS, { title: 'Chain', unit: 'bytes' }));
    expect([bytes[1].y, bytes[1].y2]).toEqual([4 * KiB, 6 * KiB]);
  });

  it('leaves out records of size 0 and refuses offsets that do not fit the problem', () => {
    const withEmpty = makeProblem('empty', [...PROBLEM.records, { id: 'e', size: 0, first: 0, last: 3 }]);
    expect(rowsOf(allocationPictureSpec(withEmpty, [...OFFSETS, 0], { title: 't' }))).toHaveLength(4);
    expect(() => allocationPictureSpec(PROBLEM, [0, 0], { title: 't' })).toThrow(/2 offsets for 4 records/);
    expect(() => allocationPictureSpec(PROBLEM, [0, -1, 0, 0], { title: 't' })).toThrow(/record 1 .* offset -1/);
  });
});
