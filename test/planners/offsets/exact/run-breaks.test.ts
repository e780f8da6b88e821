import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunBreaks } from '../../../../src/planners/offsets/exact/run-breaks.ts';

/** The run that starts at t, found by walking the points one by one (what the sweep did before). */
function walkedRunEnd(sky: Float64Array, rest: Float64Array, t: number): number {
  let e = t;
  while (e + 1 < sky.length && rest[e + 1] > 0 && sky[e + 1] === sky[t]) e++;
  return e;
}

describe('RunBreaks', () => {
  it('ends every run where a walk over the points ends it, through changes of heights and rests refreshed by range', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 90 })
          .chain((points) =>
            fc.tuple(
              fc.array(fc.integer({ min: 0, max: 3 }), { minLength: points, maxLength: points }),
              fc.array(fc.integer({ min: 0, max: 2 }), { minLength: points, maxLength: points }),
              fc.array(fc.tuple(fc.nat(points - 1), fc.nat(points - 1), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })), { maxLength: 20 }),
            ),
          ),
        ([heights, rests, changes]) => {
          const sky = Float64Array.from(heights);
          const rest = Float64Array.from(rests);
          const breaks = new RunBreaks(sky, rest);
          const check = (): void => {
            for (let t = 0; t < sky.length; t++) if (rest[t] > 0) expect(breaks.runEnd(t)).toBe(walkedRunEnd(sky, rest, t));
          };
          check();
          for (const [x, y, height, r] of changes) {
            const from = Math.min(x, y);
            const to = Math.max(x, y);
            for (let t = from; t <= to; t++) {
              sky[t] = height;
              rest[t] = r;
            }
            breaks.refreshRange(from, to + 1); // the search refreshes what it changed and the point after
            check();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds run ends across word boundaries and at the last point', () => {
    const sky = new Float64Array(100).fill(5);
    const rest = new Float64Array(100).fill(1);
    const breaks = new RunBreaks(sky, rest);
    expect(breaks.runEnd(0)).toBe(99);
    sky[64] = 6;
    breaks.refreshRange(64, 65);
    expect(breaks.runEnd(0)).toBe(63);
    expect(breaks.runEnd(64)).toBe(64);
    expect(breaks.runEnd(65)).toBe(99);
    rest[31] = 0;
    breaks.refreshRange(31, 32);
    expect(breaks.runEnd(0)).toBe(30);
    expect(breaks.runEnd(32)).toBe(63);
  });
});
