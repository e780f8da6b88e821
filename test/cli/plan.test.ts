import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memplanHere, once, userErrorLine } from './run-memplan.ts';

/** The built-in planner ids (DESIGN.md's 13, this project's best-of, search and exact, two tie-rule variants), in registry order. */
const PLANNER_IDS = [
  'shared-objects/naive',
  'shared-objects/equality',
  'shared-objects/greedy-in-order',
  'shared-objects/min-cost-flow',
  'shared-objects/greedy-by-breadth',
  'shared-objects/greedy-by-size',
  'shared-objects/greedy-by-size-improved',
  'shared-objects/greedy-by-size-improved-size-first',
  'shared-objects/exact',
  'offsets/naive',
  'offsets/greedy-by-size',
  'offsets/greedy-by-breadth',
  'offsets/strip-packing-best-fit',
  'offsets/strip-packing-best-fit-smaller-first',
  'offsets/skyline-by-lifetime',
  'offsets/path-cover',
  'offsets/best-of',
  'offsets/search',
  'offsets/exact',
];

const PAPER = 'examples/paper-example.json';
/** The paper's example (Figure 1), closed intervals. */
const PAPER_RECORDS = [
  { size: 32, first: 0, last: 1 },
  { size: 28, first: 1, last: 4 },
  { size: 36, first: 2, last: 5 },
  { size: 16, first: 3, last: 5 },
  { size: 8, first: 4, last: 5 },
  { size: 64, first: 5, last: 7 },
  { size: 10, first: 6, last: 8 },
  { size: 40, first: 7, last: 8 },
];

/** A MiniMalloc trace (half-open) with odd sizes, listed out of lifetime order. */
const TRACE_CSV = ['id,lower,upper,size,offset', 'c,4,9,33,0', 'a,0,3,100,0', 'e,2,6,7,0', 'b,1,5,250,0', 'd,6,12,64,0', 'f,3,4,1,0', ''].join('\n');
const TRACE_RECORDS = [
  { size: 33, first: 4, last: 8 },
  { size: 100, first: 0, last: 2 },
  { size: 7, first: 2, last: 5 },
  { size: 250, first: 1, last: 4 },
  { size: 64, first: 6, last: 11 },
  { size: 1, first: 3, last: 3 },
];

interface Result {
  planner: string;
  approach: 'offsets' | 'shared-objects';
  footprint: number;
  ratioToLowerBound: number;
  valid: boolean;
  timeMs: number;
  offsets: number[];
  objects?: { ids: number[]; sizes: number[] };
}
interface Report {
  source: string;
  tensors: number;
  operators: number;
  naive: number;
  lowerBounds: { offsets: number; sharedObjects: number };
  results: Result[];
}

/** The one JSON object on stdout of a successful `plan --json`. */
function reportOf(run: { status: number | null; stdout: string; stderr: string }): Report {
  if (run.status !== 0 || run.stderr !== '') throw new Error(`exit code ${run.status}, stderr:\n${run.stderr}`);
  if (!run.stdout.endsWith('\n') || run.stdout.trimEnd().includes('\n')) throw new Error(`stdout is not one line:\n${run.stdout}`);
  const value: unknown = JSON.parse(run.stdout);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('stdout is not one JSON object');
  return value as Report;
}

/** Independent check that a plan in input order places conflicting records apart. */
function overlaps(records: readonly { size: number; first: number; last: number }[], offsets: readonly number[]): string[] {
  const found: string[] = [];
  records.forEach((a, i) =>
    records.forEach((b, j) => {
      const live = !(a.last < b.first || b.last < a.first);
      const apart = offsets[i] + a.size <= offsets[j] || offsets[j] + b.size <= offsets[i];
      if (i < j && live && !apart && a.size > 0 && b.size > 0) found.push(`${i}/${j}`);
    }),
  );
  return found;
}

let dir: string;
let traceCsv: string;
let negativeCsv: string;
let hugeCsv: string;
let nearCsv: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-cli-plan-'));
  traceCsv = join(dir, 'trace.csv');
  negativeCsv = join(dir, 'negative.csv');
  hugeCsv = join(dir, 'huge.csv');
  nearCsv = join(dir, 'near.csv');
  await writeFile(traceCsv, TRACE_CSV);
  await writeFile(negativeCsv, 'id,lower,upper,size\na,0,2,16\nb,1,3,-4\n');
  // Issue 38: each size exact, their sum (2^54 + 2^52) not.
  await writeFile(hugeCsv, `id,lower,upper,size\na,0,2,${2 ** 53 - 1}\nb,1,3,${2 ** 53 - 1}\nc,0,3,${2 ** 52}\n`);
  // 2^53 - 64 in all: exact, but not once each size is rounded up to 64 bytes.
  await writeFile(nearCsv, `id,lower,upper,size\na,0,2,${2 ** 52}\nb,1,3,${2 ** 52 - 65}\nc,0,3,1\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const paperJson = once(() => memplanHere('plan', PAPER, '--json', '--time-limit', '1'));

describe.concurrent('memplan plan --json', () => {
  it('prints exactly one JSON object with the fields of DESIGN.md', async ({ expect }) => {
    const report = reportOf(await paperJson());
    expect(Object.keys(report).sort()).toEqual(['lowerBounds', 'naive', 'operators', 'results', 'source', 'tensors']);
    expect(report.source).toBe(PAPER);
    expect(report.tensors).toBe(8);
    expect(report.operators).toBe(9);
    expect(Object.keys(report.lowerBounds).sort()).toEqual(['offsets', 'sharedObjects']);
    for (const r of report.results) {
      const keys = ['approach', 'footprint', 'offsets', 'placements', 'planner', 'ratioToLowerBound', 'timeMs', 'valid'];
      if (r.approach === 'shared-objects') keys.push('objects');
      if (r.planner.endsWith('/exact')) keys.push('optimal', 'bound');
      if (r.planner === 'offsets/exact') keys.push('trajectory');
      expect(Object.keys(r).sort(), r.planner).toEqual(keys.sort());
      expect(r.valid, r.planner).toBe(true);
      expect(r.planner.startsWith(`${r.approach}/`), r.planner).toBe(true);
      expect(typeof r.timeMs === 'number' && r.timeMs >= 0, r.planner).toBe(true);
    }
  });

  it("gives the paper's numbers: naive 234, bounds 124 / 128, offsets/greedy-by-size 124", async ({ expect }) => {
    const report = reportOf(await paperJson());
    expect(report.naive).toBe(234);
    expect(report.lowerBounds).toEqual({ offsets: 124, sharedObjects: 128 });
    const bySize = report.results.find((r) => r.planner === 'offsets/greedy-by-size');
    expect(bySize?.footprint).toBe(124);
    expect(bySize?.ratioToLowerBound).toBe(1);
    expect(report.results.find((r) => r.planner === 'offsets/naive')?.footprint).toBe(234);
  });

  it('without --planner, runs all 19 planners; every plan is per record, in input order, and sound', async ({ expect }) => {
    const report = reportOf(await paperJson());
    expect(report.results.map((r) => r.planner)).toEqual(PLANNER_IDS);
    for (const r of report.results) {
      expect(r.offsets, r.planner).toHaveLength(PAPER_RECORDS.length);
      expect(overlaps(PAPER_RECORDS, r.offsets), r.planner).toEqual([]);
      const bound = r.approach === 'offsets' ? report.lowerBounds.offsets : report.lowerBounds.sharedObjects;
      expect(r.ratioToLowerBound, r.planner).toBeCloseTo(r.footprint / bound, 12);
      expect(r.footprint, r.planner).toBeGreaterThanOrEqual(bound);
      if (r.approach === 'offsets') {
        expect(r.footprint, r.planner).toBe(Math.max(...PAPER_RECORDS.map((rec, i) => r.offsets[i] + rec.size)));
      } else {
        const { ids, sizes } = r.objects!;
        expect(ids, r.planner).toHaveLength(PAPER_RECORDS.length);
        expect(r.footprint, r.planner).toBe(sizes.reduce((a, b) => a + b, 0));
        // Objects laid out contiguously in id order; each record at its object's offset.
        PAPER_RECORDS.forEach((rec, i) => {
          expect(sizes[ids[i]], r.planner).toBeGreaterThanOrEqual(rec.size);
          expect(r.offsets[i], r.planner).toBe(sizes.slice(0, ids[i]).reduce((a, b) => a + b, 0));
        });
      }
    }
  });

  it('reads a CSV trace; --approach offsets keeps only offsets/* planners', async ({ expect }) => {
    const report = reportOf(await memplanHere('plan', traceCsv, '--approach', 'offsets', '--json', '--time-limit', '1'));
    expect(report.source).toBe(traceCsv);
    expect(report.tensors).toBe(6);
    expect(report.operators).toBe(12); // the largest upper
    expect(report.naive).toBe(455);
    expect(report.results.map((r) => r.planner)).toEqual(PLANNER_IDS.filter((id) => id.startsWith('offsets/')));
    for (const r of report.results) {
      expect(r.approach).toBe('offsets');
      expect(r.objects).toBeUndefined();
      expect(overlaps(TRACE_RECORDS, r.offsets), r.planner).toEqual([]);
    }
    // offsets/naive stacks the records one after another: the offsets are in input order.
    expect(report.results.find((r) => r.planner === 'offsets/naive')?.offsets).toEqual([0, 33, 133, 140, 390, 454]);
  });

  it('--planner may be repeated and comma-separated, and keeps the order given', async ({ expect }) => {
    const report = reportOf(await memplanHere('plan', traceCsv, '--planner', 'offsets/naive', '--planner', 'shared-objects/greedy-by-size,offsets/greedy-by-size', '--json'));
    expect(report.results.map((r) => r.planner)).toEqual(['offsets/naive', 'shared-objects/greedy-by-size', 'offsets/greedy-by-size']);
  });

  it('--align 64 makes every offset (and every shared object size) a multiple of 64', async ({ expect }) => {
    const report = reportOf(await memplanHere('plan', traceCsv, '--align', '64', '--json', '--time-limit', '1'));
    expect(report.results.map((r) => r.planner)).toEqual(PLANNER_IDS);
    for (const r of report.results) {
      expect(r.valid, r.planner).toBe(true);
      expect(
        r.offsets.filter((o) => o % 64 !== 0),
        r.planner,
      ).toEqual([]);
      expect(r.objects?.sizes.filter((s) => s % 64 !== 0) ?? [], r.planner).toEqual([]);
      expect(overlaps(TRACE_RECORDS, r.offsets), r.planner).toEqual([]);
    }
    expect(report.results.find((r) => r.planner === 'offsets/naive')?.offsets).toEqual([0, 64, 192, 256, 512, 576]);
  });
});

describe.concurrent('memplan plan --planner offsets/exact', () => {
  it('--time-limit S --json adds "optimal" and the proven bound', async ({ expect }) => {
    const run = await memplanHere('plan', PAPER, '--planner', 'offsets/exact', '--time-limit', '5', '--json');
    expect(run.status).toBe(0);
    const [result] = reportOf(run).results as unknown as { planner: string; footprint: number; optimal: boolean; bound: number; valid: boolean }[];
    expect(result).toMatchObject({ planner: 'offsets/exact', footprint: 124, optimal: true, bound: 124, valid: true });
  });

  it('--json gives the trajectory: times, best arenas and bounds, ending at the claim', async ({ expect }) => {
    const run = await memplanHere('plan', 'synthetic:planted?n=40&seed=3&family=guillotine', '--planner', 'offsets/exact', '--time-limit', '5', '--json');
    expect(run.status).toBe(0);
    const [result] = reportOf(run).results as unknown as { footprint: number; optimal: boolean; bound: number; trajectory: { timeMs: number; footprint: number; bound: number }[] }[];
    const { trajectory } = result;
    expect(trajectory.length).toBeGreaterThan(0);
    for (const [k, p] of trajectory.entries()) {
      expect(p.bound).toBeLessThanOrEqual(p.footprint);
      if (k > 0) {
        expect(p.timeMs).toBeGreaterThanOrEqual(trajectory[k - 1].timeMs);
        expect(p.footprint).toBeLessThanOrEqual(trajectory[k - 1].footprint);
        expect(p.bound).toBeGreaterThanOrEqual(trajectory[k - 1].bound);
      }
    }
    expect(trajectory[trajectory.length - 1]).toMatchObject({ footprint: result.footprint, bound: result.bound });
    // A planted problem's optimum is its max-breadth bound, 1 MiB: optimal only there.
    expect(result.optimal).toBe(result.footprint === 1048576);
  });

  it('says "proven optimal" in the table, and refuses a negative time limit', async ({ expect }) => {
    const [table, bad] = await Promise.all([memplanHere('plan', PAPER, '--planner', 'offsets/exact,offsets/search'), memplanHere('plan', PAPER, '--planner', 'offsets/exact', '--time-limit', '-1')]);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/offsets\/exact .* verified, proven optimal/);
    expect(table.stdout).toMatch(/offsets\/search .* verified$/m);
    expect(userErrorLine(bad)).toMatch(/--time-limit must be a number of seconds >= 0, got -1/);
  });
});

describe.concurrent('memplan plan (human output)', () => {
  it('prints an aligned table with every planner and the unit MiB', async ({ expect }) => {
    const run = await memplanHere('plan', PAPER, '--time-limit', '1');
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(PAPER);
    expect(run.stdout).toContain('MiB');
    const lines = run.stdout.trimEnd().split('\n');
    const rule = lines.findIndex((line) => /^-+( +-+)+$/.test(line));
    expect(rule).toBeGreaterThan(0);
    const header = lines[rule - 1];
    expect(header.split(/ {2,}/)).toContain('MiB');
    const rows = lines.slice(rule + 1);
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(PLANNER_IDS);
    // Aligned: every row reaches the last column (left-aligned text, so it may end sooner
    // than the rule), and the gaps between columns are blank in every row.
    const gaps = [...lines[rule].matchAll(/ +/g)].map((m) => m.index!);
    for (const row of rows) {
      expect(row.length, row).toBeGreaterThan(gaps[gaps.length - 1]);
      expect(row.length, row).toBeLessThanOrEqual(lines[rule].length);
      for (const gap of gaps) expect(row[gap], row).toBe(' ');
    }
    expect(rows.find((row) => row.startsWith('offsets/greedy-by-size '))).toMatch(/ 124 /);
  });
});

describe.concurrent('memplan plan: bad input and usage', () => {
  it('a CSV with a negative size: exit 2, one line naming the file and line', async ({ expect }) => {
    const line = userErrorLine(await memplanHere('plan', negativeCsv, '--json'));
    expect(line).toContain(`${negativeCsv}:3`);
    expect(line).toMatch(/size -4 is negative/);
  });

  it('sizes whose sum passes 2^53 - 1: exit 2, one line naming the file and line, no planner run (issue 38)', async ({ expect }) => {
    const line = userErrorLine(await memplanHere('plan', hugeCsv));
    expect(line).toBe(`memplan: ${hugeCsv}:3: size 9007199254740991 brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.`);
  });

  it('--align that takes the sum of the rounded sizes past 2^53 - 1: exit 2, one line; without it the file plans', async ({ expect }) => {
    const [aligned, plain] = await Promise.all([
      memplanHere('plan', nearCsv, '--align', '64', '--planner', 'offsets/greedy-by-size'),
      memplanHere('plan', nearCsv, '--planner', 'offsets/greedy-by-size', '--json'),
    ]);
    expect(userErrorLine(aligned)).toBe(
      `memplan: ${nearCsv}: with --align 64, record 2 (id "c") brings the sum of the sizes, each rounded up to 64 bytes, past 2^53 - 1 bytes, beyond which plans are not exact.`,
    );
    const report = reportOf(plain);
    expect(report.naive).toBe(2 ** 53 - 64);
    expect(report.results[0].valid).toBe(true);
  });

  it('--align 0, -8, 1e20, 3, 1.5: exit 2, one line (a power of two from 1 to 2^52)', async ({ expect }) => {
    const values = ['0', '-8', '1e20', '3', '1.5'];
    const runs = await Promise.all(values.map((value) => memplanHere('plan', PAPER, `--align=${value}`)));
    runs.forEach((run, k) => {
      expect(userErrorLine(run)).toMatch(/^memplan: --align must be a power of two of bytes from 1 to 2\^52 \(1, 4, 64, 256\.\.\.\), got /);
      expect(run.stderr, values[k]).toContain(`got ${Number(values[k])}.`);
    });
  });

  it('a missing file: exit 2, one line naming the file', async ({ expect }) => {
    const missing = join(dir, 'missing.json');
    const line = userErrorLine(await memplanHere('plan', missing));
    expect(line).toContain(missing);
    expect(line).toMatch(/no such file/);
  });

  it('an unknown planner id: exit 2, one line with the closest ids', async ({ expect }) => {
    const line = userErrorLine(await memplanHere('plan', PAPER, '--planner', 'offsets/greedy-by-sise'));
    expect(line).toContain('offsets/greedy-by-sise');
    expect(line).toContain('offsets/greedy-by-size');
  });

  it('an unknown option: non-zero exit and a message naming it', async ({ expect }) => {
    const run = await memplanHere('plan', PAPER, '--frobnicate');
    expect(run.status).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/frobnicate/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('no command: non-zero exit and a message', async ({ expect }) => {
    const run = await memplanHere();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/command/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});
