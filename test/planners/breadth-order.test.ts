import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operatorBreadths, operatorProfiles } from '../../src/core/profiles.ts';
import { visitByBreadth } from '../../src/planners/breadth-order.ts';
import { problems } from '../fixtures/arbitraries.ts';

describe('the breadth order of Algorithm 1', () => {
  it('is the order of ranking every operator (as TFLite does), though it ranks only starts', () => {
    fc.assert(
      fc.property(problems(), (problem) => {
        const breadths = operatorBreadths(problem);
        const profiles = operatorProfiles(problem);
        const operators = profiles.map((_, op) => op).sort((a, b) => breadths[b] - breadths[a] || a - b);
        const expected: number[] = [];
        const seen = new Set<number>();
        for (const op of operators) {
          for (const record of profiles[op]) {
            if (!seen.has(record)) {
              seen.add(record);
              expected.push(record);
            }
          }
        }
        const visited: number[] = [];
        visitByBreadth(problem, (record) => visited.push(record));
        expect(visited).toEqual(expected);
      }),
    );
  });
});
