import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FreeSpace } from '../../../src/planners/budgeted/free-space.ts';

const STEPS = 6;
const CAPACITY = 64;

/** The plain model: a byte map per step, true where taken. */
class ByteMaps {
  readonly taken = Array.from({ length: STEPS }, () => new Array<boolean>(CAPACITY).fill(false));
  isFree(from: number, to: number, offset: number, size: number): boolean {
    if (offset < 0 || offset + size > CAPACITY) return false;
    for (let t = from; t <= to; t++) for (let b = offset; b < offset + size; b++) if (this.taken[t][b]) return false;
    return true;
  }
  take(from: number, to: number, offset: number, size: number): void {
    for (let t = from; t <= to; t++) for (let b = offset; b < offset + size; b++) this.taken[t][b] = true;
  }
  lowestFit(from: number, to: number, size: number, alignment: number): number {
    for (let offset = 0; offset + size <= CAPACITY; offset += alignment) if (this.isFree(from, to, offset, size)) return offset;
    return -1;
  }
}

const request = fc.record({ from: fc.integer({ min: 0, max: STEPS - 1 }), span: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 1, max: 20 }) });

describe('free space over steps', () => {
  it('finds the lowest aligned offset free at every step of a range, as a byte map does, and undoes back to a mark', () => {
    fc.assert(
      fc.property(fc.array(request, { maxLength: 25 }), fc.constantFrom(1, 4, 8), fc.integer({ min: 0, max: 25 }), (requests, alignment, markAt) => {
        const space = new FreeSpace(STEPS, CAPACITY, alignment);
        const model = new ByteMaps();
        let snapshot: boolean[][] | undefined;
        requests.forEach((r, k) => {
          if (k === markAt) {
            space.mark();
            snapshot = model.taken.map((row) => row.slice());
          }
          const to = Math.min(STEPS - 1, r.from + r.span);
          const offset = space.lowestFit(space.commonFree(r.from, to), r.size);
          expect(offset).toBe(model.lowestFit(r.from, to, r.size, alignment));
          if (offset >= 0) {
            expect(space.isFree(r.from, to, offset, r.size)).toBe(true);
            space.take(r.from, to, offset, r.size);
            model.take(r.from, to, offset, r.size);
          }
        });
        if (snapshot !== undefined) {
          space.rollback();
          model.taken.splice(0, STEPS, ...snapshot);
          // Every range the model calls free is free again, and only those.
          for (let t = 0; t < STEPS; t++) for (let b = 0; b < CAPACITY; b++) expect(space.isFree(t, t, b, 1)).toBe(model.isFree(t, t, b, 1));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('narrows a step range back in time to what is free at the earlier step too', () => {
    const space = new FreeSpace(3, 100, 1);
    space.take(0, 0, 20, 30);
    const common = space.commonFree(1, 2);
    expect(common).toEqual([0, 100]);
    expect(space.narrow(common, 0)).toEqual([0, 20, 50, 100]);
    expect(space.lowestFit(space.narrow(common, 0), 40)).toBe(50);
  });
});
