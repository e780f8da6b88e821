import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denseTime } from '../../src/core/dense-time.ts';
import { DisjointIntervalSet } from '../../src/core/interval-set.ts';
import { MinHeap } from '../../src/core/min-heap.ts';
import { RangeAddMaxTree } from '../../src/core/range-add-max-tree.ts';
import { Skyline } from '../../src/core/skyline.ts';
import { problems } from '../fixtures/arbitraries.ts';

const range = (points: number) => fc.tuple(fc.integer({ min: 0, max: points - 1 }), fc.integer({ min: 0, max: points - 1 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);

describe('dense time', () => {
  it('keeps exactly the conflicts of the original times', () => {
    fc.assert(
      fc.property(problems({ sparse: true }), (problem) => {
        const dense = denseTime(problem.records);
        const rs = problem.records;
        for (let i = 0; i < rs.length; i++) {
          for (let j = 0; j < rs.length; j++) {
            const before = !(rs[i].last < rs[j].first || rs[j].last < rs[i].first);
            const after = !(dense.last[i] < dense.first[j] || dense.last[j] < dense.first[i]);
            expect(after).toBe(before);
          }
          expect(dense.times[dense.first[i]]).toBe(rs[i].first);
          expect(dense.times[dense.last[i]]).toBe(rs[i].last);
        }
      }),
    );
  });
});

describe('range add / max tree', () => {
  it('matches an array', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(range(37), fc.integer({ min: -5, max: 9 }), range(37))), (ops) => {
        const tree = new RangeAddMaxTree(37);
        const array = new Array<number>(37).fill(0);
        for (const [[l, r], value, [ql, qr]] of ops) {
          tree.add(l, r, value);
          for (let t = l; t <= r; t++) array[t] += value;
          expect(tree.rangeMax(ql, qr)).toBe(Math.max(...array.slice(ql, qr + 1)));
        }
        // Leaves past the last point stay at 0, so the global maximum is at least 0.
        expect(tree.globalMax()).toBe(Math.max(0, ...array));
      }),
    );
  });
});

describe('skyline', () => {
  it('places each block on the highest point under it and raises the span to its top', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(range(29), fc.integer({ min: 0, max: 50 }))), (blocks) => {
        const skyline = new Skyline(29);
        const heights = new Array<number>(29).fill(0);
        for (const [[l, r], size] of blocks) {
          const expected = Math.max(...heights.slice(l, r + 1));
          expect(skyline.place(l, r, size)).toBe(expected);
          for (let t = l; t <= r; t++) heights[t] = expected + size;
        }
      }),
    );
  });
});

describe('disjoint interval set', () => {
  it('answers isFree like a list scan', () => {
    fc.assert(
      fc.property(fc.array(range(60), { maxLength: 40 }), (intervals) => {
        const set = new DisjointIntervalSet();
        const kept: (readonly [number, number])[] = [];
        for (const [first, last] of intervals) {
          const free = kept.every(([a, b]) => b < first || last < a);
          expect(set.isFree(first, last)).toBe(free);
          if (free) {
            set.insert(first, last);
            kept.push([first, last]);
          }
        }
        expect(set.size).toBe(kept.length);
      }),
    );
  });
});

describe('min heap', () => {
  it('pops in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const heap = new MinHeap<number>((a, b) => a < b);
        for (const v of values) heap.push(v);
        const popped: number[] = [];
        while (heap.size > 0) popped.push(heap.pop() as number);
        expect(popped).toEqual([...values].sort((a, b) => a - b));
        expect(heap.pop()).toBeUndefined();
      }),
    );
  });
});
