import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FloorTree } from '../../../../src/planners/offsets/exact/floor-tree.ts';

/** One change to the skyline: a range set to a height, or one point's coverage switched. */
type Step =
  | { readonly kind: 'assign'; readonly a: number; readonly b: number; readonly height: number }
  | { readonly kind: 'cover'; readonly t: number; readonly covered: boolean; readonly height: number };

const runs = fc.integer({ min: 1, max: 40 }).chain((points) =>
  fc.record({
    points: fc.constant(points),
    covered: fc.array(fc.boolean(), { minLength: points, maxLength: points }),
    steps: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('assign' as const), a: fc.nat(points - 1), b: fc.nat(points - 1), height: fc.integer({ min: 0, max: 6 }) }),
        fc.record({ kind: fc.constant('cover' as const), t: fc.nat(points - 1), covered: fc.boolean(), height: fc.integer({ min: 0, max: 6 }) }),
      ),
      { maxLength: 30 },
    ),
  }),
);

describe('FloorTree', () => {
  it('answers lowest() and firstAbove() as a plain array of heights does, after any changes', () => {
    fc.assert(
      fc.property(runs, ({ points, covered, steps }) => {
        const tree = new FloorTree(points);
        tree.reset((t) => covered[t]);
        const height = new Array<number>(points).fill(0);
        const cover = covered.slice();
        const check = (): void => {
          // The lowest covered point, leftmost on ties.
          let lowest = -1;
          for (let t = 0; t < points; t++) if (cover[t] && (lowest < 0 || height[t] < height[lowest])) lowest = t;
          expect(tree.lowest()).toBe(lowest);
          for (let from = 0; from <= points; from++) {
            for (let h = 0; h <= 6; h++) {
              let above = points;
              for (let t = from; t < points; t++) {
                if (height[t] > h) {
                  above = t;
                  break;
                }
              }
              expect(tree.firstAbove(from, h)).toBe(above);
            }
          }
        };
        check();
        for (const step of steps as Step[]) {
          if (step.kind === 'assign') {
            const [a, b] = step.a <= step.b ? [step.a, step.b] : [step.b, step.a];
            tree.assign(a, b, step.height);
            height.fill(step.height, a, b + 1);
          } else {
            tree.setCovered(step.t, step.covered, step.height);
            cover[step.t] = step.covered;
            height[step.t] = step.height;
          }
          check();
        }
      }),
    );
  });
});
