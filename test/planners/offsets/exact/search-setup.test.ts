import { describe, expect, it } from 'vitest';
import { movableTest, type RecordsByFirst, withRoom } from '../../../../src/planners/offsets/exact/search-setup.ts';

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
