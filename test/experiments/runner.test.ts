import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperiment, parseExperiment } from '../../src/experiments/config.ts';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';
import type { CellResult } from '../../src/experiments/result.ts';
import { measuredResult, runExperiment } from '../../src/experiments/runner.ts';
import type { ExecuteReport } from '../../src/backends/execution-report.ts';
import { summarizeLatency } from '../../src/backends/latency.ts';
import { lockRun } from '../../src/experiments/run-lock.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const experiment = (extra: object = {}) =>
  parseExperiment(
    JSON.stringify({
      name: 'small',
      approach: 'offsets',
      models: [
        { source: 'zoo:blazeface', label: 'BlazeFace' },
        { source: 'synthetic:chain?n=50&seed=2', label: 'chain' },
      ],
      planners: ['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/greedy-in-order'],
      repetitions: 3,
      ...extra,
    }),
    join(dir, 'small.json'),
  );

/** One model on the cpu backend, one timed inference a cell and no warm-up, outputs not checked; `backend` adds to the backend's settings. */
const executed = (name: string, model: { source: string; label: string }, planners: string[], backend: object) =>
  parseExperiment(
    JSON.stringify({
      name,
      approach: 'offsets',
      models: [model],
      planners,
      backends: [{ kind: 'cpu', repetitions: 1, warmup: 0, verifyByExecution: false, ...backend }],
      repetitions: 1,
    }),
    join(dir, `${name}.json`),
  );

const lines = async (path: string): Promise<CellResult[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as CellResult);

describe('the runner', () => {
  it('records how busy the machine was while it timed networks, and where a pinned cell ran', async () => {
    const timed = executed('timed', { source: 'zoo:blazeface', label: 'BlazeFace' }, ['offsets/greedy-by-size'], { pinCore: true });
    const outcome = await runExperiment(timed, { root: join(dir, 'timed'), quiet: true });
    const info = JSON.parse(await readFile(join(outcome.dir, 'run.json'), 'utf8')) as { load: { busy: boolean; seconds: number; rule: string }[] };
    expect(info.load).toHaveLength(1);
    expect(typeof info.load[0].busy).toBe('boolean');
    expect(info.load[0].seconds).toBeGreaterThan(0);
    const [cell] = await lines(join(outcome.dir, 'results.jsonl'));
    // Pinned where the machine allows it, or the reason it was not.
    expect((cell.device as { pinning?: { core: number | null } }).pinning).toBeDefined();
    // A plan-only run times nothing: its run.json has no load.
    const planned = await runExperiment(experiment(), { root: join(dir, 'untimed'), quiet: true });
    expect(JSON.parse(await readFile(join(planned.dir, 'run.json'), 'utf8'))).not.toHaveProperty('load');
  });

  it('times the cells of a network in turns with rounds: each cell over every turn, the order reversed every other turn', async () => {
    const turns = executed('turns', { source: 'zoo:mobilenet-v2?input=32', label: 'MobileNet v2 (32)' }, ['offsets/greedy-by-size', 'offsets/naive'], { rounds: 2 });
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => said.push(String(chunk)) > 0) as typeof process.stderr.write;
    let outcome: Awaited<ReturnType<typeof runExperiment>>;
    try {
      outcome = await runExperiment(turns, { root: join(dir, 'turns') });
    } finally {
      process.stderr.write = write;
    }
    const cells = await lines(join(outcome.dir, 'results.jsonl'));
    // In the file's order, each timed over its two turns of one inference.
    expect(cells.map((c) => [c.planner, c.rounds, c.latencyMs?.runs])).toEqual([
      ['offsets/greedy-by-size', 2, 2],
      ['offsets/naive', 2, 2],
    ]);
    const notes = said.join('').split('\n');
    expect(notes.filter((line) => / turn \d of \d/.test(line))).toEqual(["turns: MobileNet v2 (32): turn 2 of 2, every cell's plan timed again, in reverse order"]);
  });

  it("pools a cell's turns: latency over every turn's samples, memory and outputs' check from the first, the peer ratio on the pooled median", () => {
    const report = (samples: number[], peak: number): ExecuteReport =>
      ({ footprint: 64, latencyMs: summarizeLatency(samples), samplesMs: samples, matchesNaive: true, memory: { peakRss: peak }, device: { turn: peak } }) as unknown as ExecuteReport;
    const cell = { model: 'm', planner: 'p' } as CellResult;
    const peer = { runtime: 'r', latencyMs: summarizeLatency([2]), ratio: 0, relativeError: 0 };
    const pooled = measuredResult(cell, [report([1, 9], 10), report([3, 4, 5], 20)], peer, 1);
    expect(pooled.latencyMs).toEqual(summarizeLatency([1, 9, 3, 4, 5]));
    expect(pooled).toMatchObject({ rounds: 2, footprint: 64, matchesNaive: true, memory: { peakRss: 10 }, device: { turn: 10 }, peer: { ratio: 4 / 2 } });
    // One turn: its own summary, no rounds field.
    expect(measuredResult(cell, [report([1, 9], 10)], undefined, 1)).not.toHaveProperty('rounds');
    const bare = { ...report([7], 30), samplesMs: undefined } as ExecuteReport;
    expect(() => measuredResult(cell, [report([1], 10), bare], undefined, 1)).toThrow(ExperimentError);
  });

  it('runs every cell through the verifier and writes results.jsonl and run.json', async () => {
    const outcome = await runExperiment(experiment(), { root: join(dir, 'a'), quiet: true });
    expect(outcome.results).toHaveLength(6);
    const written = await lines(join(outcome.dir, 'results.jsonl'));
    expect(written).toEqual(outcome.results);
    for (const r of written) {
      expect(r.valid).toBe(true);
      expect(r.timeMs.runs).toBe(3);
      expect(r.footprint).toBeGreaterThanOrEqual(r.lowerBounds.offsets);
      expect(r.ratioToNaive).toBeCloseTo(r.footprint / r.naive, 12);
    }
    const info = JSON.parse(await readFile(join(outcome.dir, 'run.json'), 'utf8'));
    expect(info).toMatchObject({ experiment: 'small', config: { name: 'small' } });
    expect(Object.keys(info)).toEqual(expect.arrayContaining(['date', 'gitCommit', 'versions', 'machine']));
    expect(info.machine.cores).toBeGreaterThan(0);
  });

  it('resumes a killed run without losing or repeating a finished cell', async () => {
    const root = join(dir, 'b');
    const first = await runExperiment(experiment(), { root, quiet: true });
    const path = join(first.dir, 'results.jsonl');
    const text = await readFile(path, 'utf8');
    // Keep two whole lines and half of the third, as a kill mid-write would.
    const kept = text.split('\n').slice(0, 2).join('\n');
    await writeFile(path, `${kept}\n${text.split('\n')[2].slice(0, 20)}`);
    const resumed = await runExperiment(experiment(), { root, resume: true, quiet: true });
    expect(resumed.dir).toBe(first.dir);
    const after = await lines(path);
    expect(after).toHaveLength(6);
    expect(new Set(after.map((r) => `${r.model} ${r.planner}`)).size).toBe(6);
    expect(after.slice(0, 2)).toEqual(first.results.slice(0, 2));
  });

  it('resumes with planners added (only their cells run), but not with settings every cell depends on changed', async () => {
    const root = join(dir, 'b2');
    const first = await runExperiment(experiment({ planners: ['offsets/greedy-by-size'] }), { root, quiet: true });
    const grown = await runExperiment(experiment({ planners: ['offsets/greedy-by-size', 'offsets/naive'] }), { root, resume: true, quiet: true });
    expect(grown.dir).toBe(first.dir);
    expect(grown.results.slice(0, 2)).toEqual(first.results);
    expect(grown.results.map((r) => r.planner).sort()).toEqual(['offsets/greedy-by-size', 'offsets/greedy-by-size', 'offsets/naive', 'offsets/naive']);
    await expect(runExperiment(experiment({ repetitions: 5 }), { root, resume: true, quiet: true })).rejects.toThrow(
      `${first.dir} ran small with other settings (repetitions 3 now 5); run without --resume to start a new run.`,
    );
    await expect(runExperiment(experiment({ records: { elementSize: 2 } }), { root, resume: true, quiet: true })).rejects.toThrow(/other settings \(records .+ now .+"elementSize":2.+\)/);
    expect(await lines(join(first.dir, 'results.jsonl'))).toHaveLength(4);
  });

  it('resumes into a folder left without run.json (a run stopped before its first cell) as a fresh run', async () => {
    const root = join(dir, 'b3');
    await mkdir(join(root, 'small', '2000-01-01T00-00-00Z'), { recursive: true });
    const resumed = await runExperiment(experiment(), { root, resume: true, quiet: true });
    expect(resumed.dir).toBe(join(root, 'small', '2000-01-01T00-00-00Z'));
    expect(resumed.results).toHaveLength(6);
  });

  it('skips absent optional sources and planners above their size limit, saying why', async () => {
    const outcome = await runExperiment(
      experiment({
        models: [{ source: 'no/such/trace.csv', optional: true }, { source: 'synthetic:dag?n=1200' }],
        planners: ['shared-objects/min-cost-flow', 'offsets/greedy-by-size'],
      }),
      { root: join(dir, 'c'), quiet: true },
    );
    expect(outcome.results.map((r) => r.planner)).toEqual(['offsets/greedy-by-size']);
    expect(outcome.skipped.join('\n')).toMatch(/trace\.csv is absent/);
    expect(outcome.skipped.join('\n')).toMatch(/min-cost-flow plans at most 1000 records/);
  });

  it("records an exact planner's claim, runs a search once, and the bounds of the other operator order", async () => {
    const outcome = await runExperiment(experiment({ planners: ['offsets/exact', 'offsets/greedy-by-size'], timeLimitSeconds: 5 }), { root: join(dir, 'x'), quiet: true });
    const exact = outcome.results.filter((r) => r.planner === 'offsets/exact');
    expect(exact).toHaveLength(2);
    for (const r of exact) {
      expect(r.timeMs.runs).toBe(1);
      expect(r.bound).toBeLessThanOrEqual(r.footprint);
      expect(r.optimal).toBe(r.bound === r.footprint);
    }
    const byNetwork = outcome.results.find((r) => r.model === 'zoo:blazeface')!;
    expect(byNetwork.otherOrder?.order).toBe('memory-aware');
    expect(byNetwork.otherOrder!.lowerBounds.offsets).toBeLessThanOrEqual(byNetwork.lowerBounds.offsets);
    // Records files have no operators to reorder.
    expect(outcome.results.find((r) => r.model.startsWith('synthetic:'))!.otherOrder).toBeUndefined();
    expect(outcome.results.find((r) => r.planner === 'offsets/greedy-by-size')!.timeMs.runs).toBe(3);
  });

  it('refuses an offsets planner in a shared-objects experiment', async () => {
    await expect(runExperiment(experiment({ approach: 'shared-objects', planners: ['offsets/greedy-by-size'] }), { root: join(dir, 'd'), quiet: true })).rejects.toThrow(ExperimentError);
  });

  it('runs the README worked example: a strategy from a user module', async () => {
    const outcome = await runExperiment(await loadExperiment('examples/first-fit-experiment.json'), { root: join(dir, 'e'), quiet: true });
    const mine = outcome.results.filter((r) => r.planner === 'offsets/first-fit');
    expect(mine).toHaveLength(2);
    for (const r of mine) {
      expect(r.valid).toBe(true);
      expect(r.plannerTitle).toBe('First Fit (example)');
    }
  });

  it('refuses more shards than cells before it makes a folder', async () => {
    const root = join(dir, 'too-many');
    await expect(runExperiment(experiment(), { root, quiet: true, shard: { index: 0, count: 5_000_000_000 } })).rejects.toThrow(
      `shard 0/5000000000: ${join(dir, 'small.json')} has 6 cells, so it splits into at most 6 shards.`,
    );
    expect(existsSync(root)).toBe(false);
  });

  it('writes nothing into a folder another writer holds, and holds its own only while it runs', async () => {
    const root = join(dir, 'held');
    const first = await runExperiment(experiment(), { root, quiet: true });
    expect(await readdir(first.dir)).not.toContain('run.lock');
    const before = await readFile(join(first.dir, 'results.jsonl'), 'utf8');
    const other = await lockRun(first.dir);
    try {
      await expect(
        runExperiment(experiment({ planners: ['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/greedy-in-order', 'offsets/greedy-by-breadth'] }), { root, resume: true, quiet: true }),
      ).rejects.toThrow(
        new ExperimentError(
          `${first.dir} is being written by memplan pid ${process.pid} (since ${JSON.parse(await readFile(other.path, 'utf8')).started}); wait for it to end or stop it, then try again.`,
        ),
      );
    } finally {
      await other.release();
    }
    expect(await readFile(join(first.dir, 'results.jsonl'), 'utf8')).toBe(before);
    // A run that fails lets go of its folder too.
    await expect(runExperiment(experiment({ approach: 'shared-objects', planners: ['offsets/greedy-by-size'] }), { root, resume: true, quiet: true })).rejects.toThrow(ExperimentError);
    expect(await readdir(first.dir)).not.toContain('run.lock');
  });

  it('splits a shard from the experiment file alone: a trace present or absent moves no cell, and the shard says what it skipped', async () => {
    const trace = join(dir, 'shard-trace.csv');
    const sweep = experiment({ models: [{ source: 'zoo:blazeface' }, { source: 'synthetic:chain?n=50&seed=2' }, { source: trace, optional: true }] });
    const shardOf = async (run: string) => JSON.parse(await readFile(join(run, 'run.json'), 'utf8')).shard;
    await writeFile(trace, 'id,lower,upper,size\na,0,2,64\nb,1,3,32\n');
    const having = await shardOf((await runExperiment(sweep, { root: join(dir, 'trace-here'), quiet: true, shard: { index: 1, count: 2 } })).dir);
    await unlink(trace);
    const lacking = await shardOf((await runExperiment(sweep, { root: join(dir, 'trace-gone'), quiet: true, shard: { index: 1, count: 2 } })).dir);
    expect(lacking.order).toEqual(having.order);
    expect(lacking.assigned).toEqual(having.assigned);
    expect(having).toMatchObject({ absentSources: [], skipped: [] });
    const mine = having.assigned.filter((key: string) => key.startsWith(trace));
    expect(mine.length).toBeGreaterThan(0);
    expect(lacking.absentSources).toEqual([trace]);
    expect(lacking.skipped).toEqual(mine.map((cell: string) => ({ cell, because: 'source-absent', source: trace })));
  });

  it("records a shard's cells beyond a planner's size limit as not applicable", async () => {
    const outcome = await runExperiment(experiment({ models: [{ source: 'synthetic:dag?n=1200' }], planners: ['shared-objects/min-cost-flow', 'offsets/greedy-by-size'] }), {
      root: join(dir, 'limit'),
      quiet: true,
      shard: { index: 0, count: 1 },
    });
    const shard = JSON.parse(await readFile(join(outcome.dir, 'run.json'), 'utf8')).shard;
    expect(shard.skipped).toEqual([
      { cell: 'synthetic:dag?n=1200\u0000shared-objects/min-cost-flow\u0000plan-only', because: 'not-applicable', note: expect.stringMatching(/min-cost-flow plans at most 1000 records/) },
    ]);
  });
});
