import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';
import { LATENCY_RUN_FILE, latencyEvidence, nameLatencyRun } from '../../src/report/reproduce.ts';

// `npx memplan reproduce` rewriting results/paper byte for byte is checked as the README's
// command, in test/readme-commands.test.ts.

describe('the latency run claim 7 reads', () => {
  const info = (load?: unknown) => ({
    date: '2026-11-27T08:00:00.000Z',
    gitCommit: 'x',
    versions: { 'memplan-bench': '0.1.0', node: 'v20.20.2', v8: '11' },
    machine: { cpu: 'Test CPU', cores: 2, memoryBytes: 1, os: 'linux test' },
    ...(load === undefined ? {} : { load }),
  });
  const cell = (model: string, planner: string, median: number, pinning?: unknown) => ({
    model,
    modelLabel: model,
    planner,
    backend: 'cpu',
    latencyMs: { runs: 20, median, min: median, max: median, p90: median, ci95: [median - 1, median + 1] },
    device: { backend: 'cpu', ...(pinning === undefined ? {} : { pinning }) },
  });
  async function writeRun(root: string, run: string, load?: unknown, pinning?: unknown): Promise<void> {
    const dir = join(root, 'latency-cpu', run);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'run.json'), JSON.stringify(info(load)));
    await writeFile(
      join(dir, 'results.jsonl'),
      [cell('zoo:a', 'shared-objects/naive', 110, pinning), cell('zoo:a', 'offsets/greedy-by-size', 100, pinning)].map((c) => `${JSON.stringify(c)}\n`).join(''),
    );
  }

  it('is the run claim-7-run.json names, not the latest one, with the load and the pinning said', async () => {
    const root = await mkdtemp(join(tmpdir(), 'memplan-claim7-'));
    try {
      const quiet = [{ loadAverageBefore: 0.1, loadAverageAfter: 1.0, otherCores: 0.04, seconds: 300, busy: false, rule: 'r' }];
      await writeRun(root, '2026-01-01T00-00-00Z', quiet, { core: 1, method: 'taskset' });
      // A later run (the README's own `memplan run experiments/latency-cpu.json`) changes nothing until it is named.
      await writeRun(root, '2026-12-31T00-00-00Z', [{ ...quiet[0], otherCores: 1.5, busy: true }]);
      expect(await latencyEvidence(root)).toBeUndefined();
      await nameLatencyRun(root, '2026-01-01T00-00-00Z');
      const named = await latencyEvidence(root);
      expect(named?.busy).toBeUndefined();
      expect(named?.source).toMatch(
        /2026-01-01T00-00-00Z, named by claim-7-run\.json\) on 2026-11-27: Test CPU, 2 cores, linux test, Node v20\.20\.2\. The machine was quiet while timing: other processes used at most 0\.04 of a core on average\. Every measured process was pinned to core 1 \(taskset\)\.$/,
      );
      await nameLatencyRun(root, '2026-12-31T00-00-00Z');
      const busy = await latencyEvidence(root);
      expect(busy?.busy).toBe('the machine was busy while timing (other processes used 1.50 of a core on average over 300 s).');
      expect(busy?.source).toMatch(/The measured processes were not pinned to a core\.$/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a name that is not a run folder beside it, in one sentence', async () => {
    const root = await mkdtemp(join(tmpdir(), 'memplan-claim7-'));
    try {
      await nameLatencyRun(root, 'gone');
      await expect(latencyEvidence(root)).rejects.toThrow(ExperimentError);
      await expect(latencyEvidence(root)).rejects.toThrow(`${join(root, 'latency-cpu', LATENCY_RUN_FILE)} names the latency run gone, which is not there`);
      await nameLatencyRun(root, '../elsewhere');
      await expect(latencyEvidence(root)).rejects.toThrow(/"run" must name a run folder beside it/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
