import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLANTED_GRAIN, PLANTED_HEIGHT, plantedProblem } from '../../../../src/core/planted.ts';
import { FlatGroups } from '../../../../src/planners/offsets/exact/flat-groups.ts';
import { wholePartState } from '../../../../src/planners/offsets/exact/parts.ts';

/** Every group FlatGroups reports on the whole of a planted problem, up to `most` of them. */
function groupsOf(n: number, seed: number, family: 'guillotine' | 'lanes', most: number, firstOnly: boolean) {
  const { problem } = plantedProblem(n, seed, family);
  const { instances } = wholePartState(problem, 1);
  const { first, last, points } = instances[0];
  const units = Int32Array.from(problem.records, (r) => r.size / PLANTED_GRAIN);
  const all = problem.records.map((_, i) => i);
  const found: { group: number[]; rest: number[]; g: number }[] = [];
  let ticks = 0;
  const groups = new FlatGroups(all, 0, points, PLANTED_HEIGHT / PLANTED_GRAIN, first, last, units, () => {
    if (++ticks > 50_000) throw new Error('out of ticks');
  }, firstOnly);
  groups.each((group, rest, g) => {
    found.push({ group, rest, g });
    return found.length >= most;
  });
  return { found, first, last, units, points };
}

describe('FlatGroups', () => {
  it('reports only groups of the same live size at every point, with a time cut, the rest its complement', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 40 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom('guillotine' as const, 'lanes' as const), fc.boolean(), (n, seed, family, firstOnly) => {
        const { found, first, last, units, points } = groupsOf(n, seed, family, 5, firstOnly);
        for (const { group, rest, g } of found) {
          expect(group.length + rest.length).toBe(n);
          expect(new Set([...group, ...rest]).size).toBe(n);
          const live = new Int32Array(points);
          for (const k of group) for (let t = first[k]; t <= last[k]; t++) live[t] += units[k];
          expect([...live].every((v) => v === g)).toBe(true);
          let cut = false;
          for (let u = 1; u < points && !cut; u++) cut = group.every((k) => !(first[k] < u && u <= last[k]));
          expect(cut).toBe(true);
        }
      }),
      { numRuns: 60 },
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
