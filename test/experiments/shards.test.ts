import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExperiment } from '../../src/experiments/config.ts';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';
import { assignShards, checkShardCount, chooseShard, configHash, expectedCost, parseShard, stableHash, type ShareableCell } from '../../src/experiments/shards.ts';

describe('parseShard', () => {
  it('reads I/N with 0 <= I < N', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard(' 3/4 ')).toEqual({ index: 3, count: 4 });
  });

  it.each(['4/4', '1/0', '-1/3', '1', 'a/b', '1/2/3', '1.5/3', ''])('refuses %j with one sentence', (text) => {
    expect(() => parseShard(text)).toThrow(ExperimentError);
    expect(() => parseShard(text)).toThrow(/is not I\/N with 0 <= I < N/);
  });
});

describe('chooseShard', () => {
  const slurm = { SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '5', SLURM_ARRAY_TASK_COUNT: '4' };
  const kubernetes = { JOB_COMPLETION_INDEX: '2' };

  it('takes --shard over Slurm over Kubernetes', () => {
    expect(chooseShard('1/3', undefined, { ...slurm, ...kubernetes, MEMPLAN_SHARD_COUNT: '3' })).toEqual({ index: 1, count: 3 });
    expect(chooseShard(undefined, 5, { ...slurm, ...kubernetes })).toEqual({ index: 2, count: 4 });
    expect(chooseShard(undefined, 5, kubernetes)).toEqual({ index: 2, count: 5 });
  });

  it('counts a Slurm array from its lowest task id', () => {
    expect(chooseShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_COUNT: '4' })).toEqual({ index: 3, count: 4 });
    expect(chooseShard(undefined, undefined, slurm)).toEqual({ index: 2, count: 4 });
  });

  it('takes the Kubernetes count from --shard-count, else MEMPLAN_SHARD_COUNT', () => {
    expect(chooseShard(undefined, undefined, { ...kubernetes, MEMPLAN_SHARD_COUNT: '6' })).toEqual({ index: 2, count: 6 });
    expect(chooseShard(undefined, 3, { ...kubernetes, MEMPLAN_SHARD_COUNT: '6' })).toEqual({ index: 2, count: 3 });
  });

  it('runs the whole experiment when nothing names a shard', () => {
    expect(chooseShard(undefined, undefined, {})).toBeUndefined();
    expect(chooseShard(undefined, undefined, { SLURM_JOB_ID: '12' })).toBeUndefined();
  });

  it('says what is missing or malformed', () => {
    expect(() => chooseShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '1' })).toThrow(/SLURM_ARRAY_TASK_COUNT is not/);
    expect(() => chooseShard(undefined, undefined, kubernetes)).toThrow(/--shard-count N/);
    expect(() => chooseShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: 'x', SLURM_ARRAY_TASK_COUNT: '2' })).toThrow(/not a whole number/);
    expect(() => chooseShard(undefined, 2, { JOB_COMPLETION_INDEX: '2' })).toThrow(/is not I\/N/);
  });
});

describe('assignShards', () => {
  const cells = fc.array(fc.record({ key: fc.string({ minLength: 1, maxLength: 12 }), cost: fc.integer({ min: 0, max: 1000 }) }), { maxLength: 60 }).map((drawn) => {
    // Cell keys are unique in an experiment.
    const seen = new Set<string>();
    return drawn.filter((c) => !seen.has(c.key) && seen.add(c.key));
  });

  it('gives every cell exactly one shard, the same whatever order the cells come in', () => {
    fc.assert(
      fc.property(cells, fc.integer({ min: 1, max: 9 }), (list, count) => {
        const shard = assignShards(list, count);
        expect(shard).toHaveLength(list.length);
        for (const s of shard) expect(s >= 0 && s < count).toBe(true);
        const reversed = [...list].reverse();
        const again = assignShards(reversed, count);
        shard.forEach((s, k) => expect(again[list.length - 1 - k]).toBe(s));
      }),
    );
  });

  it('balances expected cost: no shard exceeds the mean by more than the dearest cell (the LPT bound)', () => {
    fc.assert(
      fc.property(cells, fc.integer({ min: 1, max: 9 }), (list, count) => {
        const shard = assignShards(list, count);
        const load = new Array<number>(count).fill(0);
        list.forEach((c, k) => (load[shard[k]] += c.cost));
        const total = list.reduce((sum, c) => sum + c.cost, 0);
        const dearest = Math.max(0, ...list.map((c) => c.cost));
        for (const l of load) expect(l).toBeLessThanOrEqual(total / count + dearest);
      }),
    );
  });

  it('gives the split of the plain rule (scan every shard for the least loaded, ties to the lowest index)', () => {
    // The rule as it was written first, a scan per cell: the heap must not change any split.
    const scan = (list: readonly ShareableCell[], count: number): number[] => {
      const order = list.map((_, k) => k).sort((a, b) => list[b].cost - list[a].cost || stableHash(list[a].key) - stableHash(list[b].key) || (list[a].key < list[b].key ? -1 : 1));
      const load = new Array<number>(count).fill(0);
      const shard = new Array<number>(list.length);
      for (const k of order) {
        let best = 0;
        for (let s = 1; s < count; s++) if (load[s] < load[best]) best = s;
        shard[k] = best;
        load[best] += list[k].cost;
      }
      return shard;
    };
    fc.assert(
      fc.property(cells, fc.integer({ min: 1, max: 70 }), (list, count) => {
        expect(assignShards(list, count)).toEqual(scan(list, count));
      }),
    );
  });

  it('uses no shard above the number of cells, so a huge count costs nothing', () => {
    const list = Array.from({ length: 5 }, (_, k) => ({ key: `cell ${k}`, cost: k % 2 }));
    expect(assignShards(list, 5_000_000_000)).toEqual(assignShards(list, 5));
    expect(new Set(assignShards(list, 5_000_000_000)).size).toBeLessThanOrEqual(5);
  });

  it('splits 100 000 cells over 50 000 shards in well under a second (a scan per cell took minutes)', () => {
    const list = Array.from({ length: 100_000 }, (_, k) => ({ key: `cell ${k}`, cost: (k * 7919) % 1000 }));
    const started = performance.now();
    const shard = assignShards(list, 50_000);
    // Generous for a shared machine; the old scan did 5e9 steps here.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(new Set(shard).size).toBe(50_000);
  });

  it('spreads cells of equal cost evenly', () => {
    const list = Array.from({ length: 10 }, (_, k) => ({ key: `cell ${k}`, cost: 1 }));
    const load = new Array<number>(4).fill(0);
    for (const s of assignShards(list, 4)) load[s]++;
    expect(load.sort()).toEqual([2, 2, 3, 3]);
  });
});

describe('checkShardCount', () => {
  it('refuses more shards than cells in one sentence naming the number of cells', () => {
    expect(() => checkShardCount({ index: 1, count: 10 }, 10, 'x.json')).not.toThrow();
    expect(() => checkShardCount({ index: 1, count: 99_999_999 }, 9, 'x.json')).toThrow(new ExperimentError('shard 1/99999999: x.json has 9 cells, so it splits into at most 9 shards.'));
    expect(() => checkShardCount({ index: 0, count: 2 }, 1, 'x.json')).toThrow('x.json has 1 cell, so it splits into at most 1 shard.');
  });
});

describe('stable fingerprints', () => {
  it('hashes a key the same everywhere (SHA-256 prefix)', () => {
    // The first four bytes of SHA-256("memplan") (sha256sum agrees): shards on different machines must agree.
    expect(stableHash('memplan')).toBe(0x75def49f);
  });

  it('tells configurations apart, and keeps one the same wherever its file lies', () => {
    const text = (repetitions: number) =>
      JSON.stringify({ name: 'x', approach: 'offsets', models: ['zoo:blazeface', 'traces/t.csv'], planners: ['offsets/greedy-by-size', 'mine/first-fit.ts'], repetitions });
    const here = parseExperiment(text(3), '/home/a/checkout/experiments/x.json');
    const there = parseExperiment(text(3), '/scratch/job-17/memplan/experiments/x.json');
    expect(here.models[1].source).not.toBe(there.models[1].source);
    expect(configHash(here)).toBe(configHash(there));
    expect(configHash(here)).toMatch(/^[0-9a-f]{16}$/);
    expect(configHash(parseExperiment(text(5), '/home/a/checkout/experiments/x.json'))).not.toBe(configHash(here));
  });

  it('costs searches by their time limit and the rest by their growth', () => {
    expect(expectedCost(100, 'exponential', 5, 60_000, false)).toBe(60_000);
    expect(expectedCost(1000, 'n^2', 1, 0, false)).toBeGreaterThan(expectedCost(1000, 'n log n', 1, 0, false));
    expect(expectedCost(10, 'n', 1, 0, true) - expectedCost(10, 'n', 1, 0, false)).toBe(1000);
  });
});
