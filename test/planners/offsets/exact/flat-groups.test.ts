import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLANTED_GRAIN, PLANTED_HEIGHT, plantedProblem } from '../../../../src/core/planted.ts';
import { FlatGroups } from '../../../../src/planners/offsets/exact/flat-groups.ts';
import { wholePartState } from '../../../../src/planners/offsets/exact/parts.ts';
import { mulberry32 } from '../../../../src/core/synthetic.ts';

/** Is `group` flat (the same live grains g at every point) and cut in time somewhere? */
function flatWithCut(group: number[], g: number, first: Int32Array, last: Int32Array, units: Int32Array, points: number): boolean {
  const live = new Int32Array(points);
  for (const k of group) for (let t = first[k]; t <= last[k]; t++) live[t] += units[k];
  if (!live.every((v) => v === g)) return false;
  for (let u = 1; u < points; u++) if (group.every((k) => !(first[k] < u && u <= last[k]))) return true;
  return false;
}

/** Every group FlatGroups reports on the whole of a planted problem, up to `most` of them. */
function groupsOf(n: number, seed: number, family: 'guillotine' | 'lanes', most: number, firstOnly: boolean, random?: () => number) {
  const { problem } = plantedProblem(n, seed, family);
  const { instances } = wholePartState(problem, 1);
  const { first, last, points } = instances[0];
  const units = Int32Array.from(problem.records, (r) => r.size / PLANTED_GRAIN);
  const all = problem.records.map((_, i) => i);
  const found: { group: number[]; rest: number[]; g: number }[] = [];
  let ticks = 0;
  const groups = new FlatGroups(
    all,
    0,
    points,
    PLANTED_HEIGHT / PLANTED_GRAIN,
    first,
    last,
    units,
    () => {
      if (++ticks > 50_000) throw new Error('out of ticks');
    },
    firstOnly,
    random,
  );
  groups.each((group, rest, g) => {
    found.push({ group, rest, g });
    return found.length >= most;
  });
  return { found, first, last, units, points };
}

describe('FlatGroups', () => {
  it('reports only groups of the same live size at every point, with a time cut, the rest its complement', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('guillotine' as const, 'lanes' as const),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 1000 })),
        (n, seed, family, firstOnly, drawn) => {
          const random = drawn === null ? undefined : mulberry32(drawn);
          const { found, first, last, units, points } = groupsOf(n, seed, family, 5, firstOnly, random);
          for (const { group, rest, g } of found) {
            expect(group.length + rest.length).toBe(n);
            expect(new Set([...group, ...rest]).size).toBe(n);
            expect(flatWithCut(group, g, first, last, units, points)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('enumerates every flat group with a time cut, as a check of all subsets does (its pruning drops none)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 12 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom('guillotine' as const, 'lanes' as const),
        fc.option(fc.integer({ min: 0, max: 1000 })),
        (n, seed, family, drawn) => {
          const random = drawn === null ? undefined : mulberry32(drawn);
          const { found, first, last, units, points } = groupsOf(n, seed, family, Infinity, false, random);
          const key = (group: number[]) =>
            group
              .slice()
              .sort((p, q) => p - q)
              .join(',');
          const reported = new Set(found.map(({ group }) => key(group)));
          const height = PLANTED_HEIGHT / PLANTED_GRAIN;
          const expected = new Set<string>();
          for (let mask = 1; mask < (1 << n) - 1; mask++) {
            const group = Array.from({ length: n }, (_, k) => k).filter((k) => (mask >> k) & 1);
            let g = 0;
            for (const k of group) if (first[k] === 0) g += units[k];
            if (g > 0 && g < height && flatWithCut(group, g, first, last, units, points)) expected.add(key(group));
          }
          expect(reported).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds a flat group of a planted guillotine cut of 200 records, either way it searches', () => {
    // The first cut of `guillotine` is across memory: some group of the rectangle is flat.
    for (const firstOnly of [true, false]) {
      const { found } = groupsOf(200, 1, 'guillotine', 1, firstOnly);
      expect(found.length).toBe(1);
      expect(found[0].g).toBeGreaterThan(0);
      expect(found[0].g).toBeLessThan(PLANTED_HEIGHT / PLANTED_GRAIN);
    }
  });
});
