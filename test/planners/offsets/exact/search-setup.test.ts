import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { movableTest, type RecordsByFirst, WaitingByFirst, withRoom } from '../../../../src/planners/offsets/exact/search-setup.ts';

describe('movableTest', () => {
  // Records 2, 0, 1 in list order; 0 is a twin of 2 (same lifetime and sizes), 1 is not.
  const records: RecordsByFirst = {
    startsAt: Int32Array.from([0, 3]),
    byFirst: Int32Array.from([2, 0, 1]),
    sameAsPrevious: Uint8Array.from([0, 1, 0]),
  };
  const real = Float64Array.from([4, 6, 4]);

  it('lets a record move only while unplaced, after its earlier twin, and under the capacity', () => {
    const placed = new Uint8Array(3);
    const movable = movableTest(records, placed, real, 10);
    expect(movable(0, 6)).toBe(true); // record 2: 6 + 4 fits 10
    expect(movable(0, 7)).toBe(false); // 7 + 4 passes 10
    expect(movable(1, 0)).toBe(false); // record 0 waits for its twin, record 2
    expect(movable(2, 4)).toBe(true); // record 1: 4 + 6 fits
    placed[2] = 1; // the test reads the live placement array, not a copy
    expect(movable(0, 0)).toBe(false);
    expect(movable(1, 0)).toBe(true);
  });
});

describe('withRoom', () => {
  it('hands back the same array while it has room, else a copy of twice the length (at least 16) with the same contents', () => {
    const moves = Int32Array.from([7, 8, 9, 0]);
    expect(withRoom(moves, 3)).toBe(moves);
    const full = Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    const grown = withRoom(full, 16);
    expect(grown.length).toBe(32);
    expect(Array.from(grown.subarray(0, 4))).toEqual([1, 2, 3, 4]);
    expect(withRoom(new Int32Array(0), 0).length).toBe(16);
  });
});

describe('WaitingByFirst', () => {
  /** Records by first point as recordsByFirst lays them out (index order within a point). */
  const layout = (firsts: number[], points: number): RecordsByFirst => {
    const startsAt = new Int32Array(points + 1);
    for (const t of firsts) startsAt[t + 1]++;
    for (let t = 0; t < points; t++) startsAt[t + 1] += startsAt[t];
    const fill = startsAt.slice(0, points);
    const byFirst = new Int32Array(firsts.length);
    firsts.forEach((t, i) => (byFirst[fill[t]++] = i));
    return { startsAt, byFirst, sameAsPrevious: new Uint8Array(firsts.length) };
  };

  it('keeps exactly the records not placed in front of each point, through placements and their undos in reverse order', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((points) =>
            fc.tuple(fc.constant(points), fc.array(fc.integer({ min: 0, max: points - 1 }), { minLength: 1, maxLength: 30 }), fc.array(fc.tuple(fc.boolean(), fc.nat()), { maxLength: 80 })),
          ),
        ([points, firsts, steps]) => {
          const records = layout(firsts, points);
          const waiting = new WaitingByFirst(records);
          const placed: number[] = []; // a stack, as the searches place and undo
          for (const [place, pick] of steps) {
            const free = firsts.map((_, i) => i).filter((i) => !placed.includes(i));
            if (place && free.length > 0) {
              const i = free[pick % free.length];
              waiting.place(i, firsts[i]);
              placed.push(i);
            } else if (placed.length > 0) {
              waiting.unplace(firsts[placed.pop()!]);
            }
            for (let t = 0; t < points; t++) {
              const front = Array.from(waiting.records.subarray(records.startsAt[t], waiting.waitingEnd[t])).sort((x, y) => x - y);
              const expected = firsts.map((f, i) => (f === t && !placed.includes(i) ? i : -1)).filter((i) => i >= 0);
              expect(front).toEqual(expected);
            }
          }
          // The stretches still hold each point's records, placed ones behind.
          for (let t = 0; t < points; t++) {
            const all = Array.from(waiting.records.subarray(records.startsAt[t], records.startsAt[t + 1])).sort((x, y) => x - y);
            expect(all).toEqual(Array.from(records.byFirst.subarray(records.startsAt[t], records.startsAt[t + 1])).sort((x, y) => x - y));
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
