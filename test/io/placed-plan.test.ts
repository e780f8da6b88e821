import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProblem } from '../../src/core/problem.ts';
import { InputError } from '../../src/io/input-error.ts';
import { loadPlacedPlan } from '../../src/io/placed-plan.ts';
import { parsePlacedRecordsCsv } from '../../src/io/records-csv.ts';
import { parsePlacedRecordsJson } from '../../src/io/records-json.ts';
import { placedRecordsToCsv, placedRecordsToJson } from '../../src/io/records-writers.ts';

const dir = mkdtempSync(join(tmpdir(), 'memplan-placed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plans made elsewhere: records with an offset each', () => {
  it("reads MiniMalloc's solution CSV: half-open lifetimes, the offset column in any position", () => {
    const { problem, offsets } = parsePlacedRecordsCsv('offset,id,lower,upper,size\n0,a,0,2,100\n100,b,1,3,50\n', 'plan.csv');
    expect(problem.records).toEqual([
      { id: 'a', size: 100, first: 0, last: 1 },
      { id: 'b', size: 50, first: 1, last: 2 },
    ]);
    expect(offsets).toEqual([0, 100]);
  });

  it('refuses a plan without offsets, or with an offset that is not a whole number >= 0, naming the line', () => {
    expect(() => parsePlacedRecordsCsv('id,lower,upper,size\na,0,2,100\n', 'plan.csv')).toThrow(/^plan\.csv:1: the header has no "offset" column; expected at least "id,lower,upper,size,offset"\.$/);
    expect(() => parsePlacedRecordsCsv('id,lower,upper,size,offset\na,0,2,100,-4\n', 'plan.csv')).toThrow(/^plan\.csv:2: .*offset/);
    expect(() => parsePlacedRecordsCsv('id,lower,upper,size,offset\na,0,2,100,1.5\n', 'plan.csv')).toThrow(InputError);
    expect(() => parsePlacedRecordsJson('[{"id":"a","size":4,"first":0,"last":1}]', 'plan.json')).toThrow(/^plan\.json:1: record 0: the field "offset" is missing\.$/);
  });

  it('refuses a last offset that may have been cut off in transfer (no line end)', () => {
    expect(() => parsePlacedRecordsCsv('id,lower,upper,size,offset\na,0,2,100,12', 'plan.csv')).toThrow(/offset "12" may be cut off/);
  });

  it('writes what it reads, in both formats (property)', () => {
    const record = fc.record({ size: fc.nat(1 << 20), first: fc.nat(50), span: fc.nat(10), offset: fc.nat(1 << 24) });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 30 }), (drawn) => {
        const problem = makeProblem(
          'p',
          drawn.map((r, i) => ({ id: `t${i}`, size: r.size, first: r.first, last: r.first + r.span })),
        );
        const offsets = drawn.map((r) => r.offset);
        for (const [text, read] of [
          [placedRecordsToCsv(problem, offsets), parsePlacedRecordsCsv],
          [placedRecordsToJson(problem, offsets), parsePlacedRecordsJson],
        ] as const) {
          const back = read(text, 'p');
          expect(back.problem.records).toEqual(problem.records);
          expect(back.offsets).toEqual(offsets);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('loads by extension, and refuses another with the formats it reads', async () => {
    const file = join(dir, 'plan.json');
    writeFileSync(file, placedRecordsToJson(makeProblem('p', [{ id: 'a', size: 8, first: 0, last: 0 }]), [16]));
    expect((await loadPlacedPlan(file)).offsets).toEqual([16]);
    await expect(loadPlacedPlan(join(dir, 'plan.txt'))).rejects.toThrow(/unknown plan file type; expected a \.csv in MiniMalloc's format/);
    await expect(loadPlacedPlan(join(dir, 'missing.csv'))).rejects.toThrow(/missing\.csv: no such file\.$/);
  });
});
