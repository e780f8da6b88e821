import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eachFlatGroup } from '../../../../src/planners/offsets/exact/flat-sweep.ts';

interface Piece {
  readonly first: Int32Array;
  readonly last: Int32Array;
  readonly units: Int32Array;
  readonly points: number;
}

/** Small pieces: up to 11 records over up to 6 points, sizes 1-4 grains (some of no size). */
const pieces = fc
  .record({
    points: fc.integer({ min: 1, max: 6 }),
    records: fc.array(fc.record({ a: fc.nat(5), b: fc.nat(5), size: fc.integer({ min: 0, max: 4 }) }), { minLength: 1, maxLength: 11 }),
  })
  .map(({ points, records }): Piece => {
    const clamp = (t: number): number => Math.min(points - 1, t);
    return {
      points,
      first: Int32Array.from(records, (r) => clamp(Math.min(r.a, r.b))),
      last: Int32Array.from(records, (r) => clamp(Math.max(r.a, r.b))),
      units: Int32Array.from(records, (r) => r.size),
    };
  });

/** Whether `group` has g live grains at every point and a point (> 0) none of it crosses into. */
function flatWithCut(piece: Piece, group: readonly number[], g: number): boolean {
  const live = new Int32Array(piece.points);
  for (const k of group) for (let t = piece.first[k]; t <= piece.last[k]; t++) live[t] += piece.units[k];
  if (!live.every((v) => v === g)) return false;
  for (let u = 1; u < piece.points; u++) if (group.every((k) => !(piece.first[k] < u && u <= piece.last[k]))) return true;
  return false;
}

/** Every subset, by brute force: whether some sized subset is flat at g with a cut. */
function someGroupByBruteForce(piece: Piece, g: number): boolean {
  const n = piece.units.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const group: number[] = [];
    for (let k = 0; k < n; k++) if (mask & (1 << k)) group.push(k);
    if (group.some((k) => piece.units[k] === 0)) continue;
    if (flatWithCut(piece, group, g)) return true;
  }
  return false;
}

function groups(piece: Piece, g: number, most = Infinity): number[][] {
  const found: number[][] = [];
  const all = Array.from(piece.units, (_, k) => k);
  eachFlatGroup(
    all,
    0,
    piece.points,
    g,
    piece.first,
    piece.last,
    piece.units,
    () => {},
    (group) => {
      found.push(group);
      return found.length >= most;
    },
  );
  return found;
}

describe('eachFlatGroup', () => {
  it('finds a flat group with a time cut exactly when one exists (brute force over every subset)', () => {
    fc.assert(
      fc.property(pieces, fc.integer({ min: 1, max: 8 }), (piece, g) => {
        const found = groups(piece, g, 1);
        expect(found.length > 0).toBe(someGroupByBruteForce(piece, g));
      }),
      { numRuns: 400 },
    );
  });

  it('reports only flat groups with a time cut, each once, of sized records', () => {
    fc.assert(
      fc.property(pieces, fc.integer({ min: 1, max: 8 }), (piece, g) => {
        const found = groups(piece, g);
        const seen = new Set<string>();
        for (const group of found) {
          expect(flatWithCut(piece, group, g)).toBe(true);
          expect(group.every((k) => piece.units[k] > 0)).toBe(true);
          const key = group
            .slice()
            .sort((p, q) => p - q)
            .join(',');
          expect(seen.has(key)).toBe(false);
          seen.add(key);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stops when told to, and ticks once per point visited', () => {
    // Two lanes of 1 grain over 3 points, each cut after point 0; and one record over all.
    const piece: Piece = {
      points: 3,
      first: Int32Array.from([0, 1, 0, 2, 0]),
      last: Int32Array.from([0, 2, 1, 2, 2]),
      units: Int32Array.from([1, 1, 1, 1, 1]),
    };
    expect(
      groups(piece, 1)
        .map((group) => group.slice().sort())
        .sort(),
    ).toEqual([
      [0, 1],
      [2, 3],
    ]);
    let ticks = 0;
    const all = [0, 1, 2, 3, 4];
    const accepted = eachFlatGroup(
      all,
      0,
      3,
      1,
      piece.first,
      piece.last,
      piece.units,
      () => void ticks++,
      () => true,
    );
    expect(accepted).toBe(true);
    // The first group is found on the first path: one visit per point and one at the end.
    expect(ticks).toBe(4);
  });
});
