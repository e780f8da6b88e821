import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { memplanHere, userErrorLine } from './run-memplan.ts';

const dir = mkdtempSync(join(tmpdir(), 'memplan-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe.concurrent('memplan verify', () => {
  it('passes a valid MiniMalloc solution (exit 0) with its footprint and its ratio to both lower bounds', async ({ expect }) => {
    const run = await memplanHere('verify', file('good.csv', 'id,lower,upper,size,offset\na,0,2,100,0\nb,1,3,50,100\nc,2,4,100,0\n'), '--json');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { valid: boolean; footprint: number; lowerBounds: { offsets: number; sharedObjects: number }; ratioToLowerBound: { offsets: number } };
    expect(report.valid).toBe(true);
    expect(report.footprint).toBe(150);
    expect(report.lowerBounds).toEqual({ offsets: 150, sharedObjects: 150 });
    expect(report.ratioToLowerBound.offsets).toBe(1);
  });

  it('fails an overlap (exit 1), naming the two records, their lifetimes and the bytes they share', async ({ expect }) => {
    const run = await memplanHere('verify', file('bad.csv', 'id,lower,upper,size,offset\na,0,2,100,0\nb,1,3,50,60\nc,2,4,100,0\n'));
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('INVALID: records a and b are live together (operators 0-1 and 1-2) but share bytes [60, 100).');
  });

  it('holds offsets to --align', async ({ expect }) => {
    const run = await memplanHere('verify', file('odd.csv', 'id,lower,upper,size,offset\na,0,1,64,0\nb,1,2,64,3\n'), '--align', '64', '--json');
    expect(run.status).toBe(1);
    expect((JSON.parse(run.stdout) as { violations: { kind: string }[] }).violations.map((v) => v.kind)).toContain('alignment');
  });

  it('refuses a file that is not a plan in one sentence (exit 2)', async ({ expect }) => {
    const run = await memplanHere('verify', file('records.csv', 'id,lower,upper,size\na,0,2,100\n'));
    expect(run.status).toBe(2);
    expect(userErrorLine(run)).toMatch(/records\.csv:1: the header has no "offset" column/);
  });

  it('checks what `plan --to` writes, in both formats, and `plan --json` names each offset', async ({ expect }) => {
    for (const name of ['mv2.csv', 'mv2.json']) {
      const to = join(dir, name);
      const planned = await memplanHere('plan', 'zoo:mobilenet-v2', '--planner', 'offsets/greedy-by-size', '--to', to, '--json');
      expect(planned.status).toBe(0);
      const [result] = (JSON.parse(planned.stdout) as { results: { footprint: number; offsets: number[]; placements: { id: string; offset: number }[] }[] }).results;
      expect(result.placements.map((p) => p.offset)).toEqual(result.offsets);
      expect(readFileSync(to, 'utf8')).toContain(result.placements[0].id);
      const verified = await memplanHere('verify', to, '--json');
      expect(verified.status).toBe(0);
      expect((JSON.parse(verified.stdout) as { footprint: number }).footprint).toBe(result.footprint);
    }
  });

  it('refuses --to with several planners, or a file it does not write', async ({ expect }) => {
    expect(userErrorLine(await memplanHere('plan', 'zoo:mobilenet-v2', '--to', join(dir, 'x.csv')))).toMatch(/--to writes one plan; give one --planner/);
    expect(userErrorLine(await memplanHere('plan', 'zoo:mobilenet-v2', '--planner', 'offsets/greedy-by-size', '--to', join(dir, 'x.txt')))).toMatch(/x\.txt is neither/);
  });
});
