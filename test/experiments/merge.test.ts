import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExperiment } from '../../src/experiments/config.ts';
import { mergeShards } from '../../src/experiments/merge.ts';
import { runExperiment } from '../../src/experiments/runner.ts';

/**
 * mergeShards on cells with no result: accepted only where no machine could have run them
 * (the sharded CLI sweeps, with a trace on some machines and not others, are in
 * test/cli/merge.test.ts).
 */
let dir = '';
let shard = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-merge-'));
  // min-cost-flow plans at most 1000 records: its cell on the 1200-record problem runs nowhere.
  const experiment = parseExperiment(
    JSON.stringify({
      name: 'limit',
      approach: 'shared-objects',
      models: [
        { source: 'synthetic:dag?n=1200', label: 'dag' },
        { source: 'synthetic:chain?n=20', label: 'chain' },
      ],
      planners: ['shared-objects/min-cost-flow', 'shared-objects/greedy-by-size'],
      repetitions: 1,
    }),
    join(dir, 'limit.json'),
  );
  shard = (await runExperiment(experiment, { root: dir, quiet: true, shard: { index: 0, count: 1 } })).dir;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mergeShards', () => {
  it("accepts a cell no machine can run (a planner's size limit) and says in run.json that it was skipped and why", async () => {
    const merged = await mergeShards([shard], join(dir, 'merged'));
    expect(merged).toEqual({ dir: join(dir, 'merged'), cells: 3, skipped: 1 });
    const info = JSON.parse(await readFile(join(dir, 'merged', 'run.json'), 'utf8'));
    expect(info.skipped).toEqual([
      { model: 'synthetic:dag?n=1200', planner: 'shared-objects/min-cost-flow', backend: 'plan-only', why: expect.stringMatching(/min-cost-flow plans at most 1000 records/) },
    ]);
  });

  it('takes a shard that never said why a cell has no result (stopped before its end) for one that did not finish', async () => {
    const info = JSON.parse(await readFile(join(shard, 'run.json'), 'utf8'));
    delete info.shard.skipped;
    await writeFile(join(shard, 'run.json'), JSON.stringify(info));
    await expect(mergeShards([shard], join(dir, 'unfinished'))).rejects.toThrow(
      `cells missing (a shard did not finish: run it again with --resume): synthetic:dag?n=1200 / shared-objects/min-cost-flow / plan-only (shard 0, ${shard}).`,
    );
  });
});
