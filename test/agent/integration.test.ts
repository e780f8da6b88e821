import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent/agent.ts';
import { parseExperiment } from '../../src/experiments/config.ts';
import type { CellResult } from '../../src/experiments/result.ts';
import { runExperiment } from '../../src/experiments/runner.ts';
import { memplanHere, userErrorLine } from '../cli/run-memplan.ts';
import { TOKEN } from './helpers.ts';

/** Remote devices through the harness's own doors: `memplan exec --backend remote` and an experiment with a `{ "kind": "remote" }` backend. */

let agent: RunningAgent | undefined;
let dir = '';

beforeAll(async () => {
  agent = await startAgent({ token: TOKEN, maxRunSeconds: 60 });
  dir = await mkdtemp(join(tmpdir(), 'memplan-remote-'));
});

afterAll(async () => {
  await agent?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('memplan exec --backend remote', () => {
  it('--json gives the contract of exec, measured on the agent', async () => {
    const run = await memplanHere('exec', 'zoo:blazeface', '--backend', 'remote', '--url', agent!.url, '--token', TOKEN, '--repetitions', '2', '--warmup', '1', '--json');
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual(['backend', 'device', 'footprint', 'latencyMs', 'matchesNaive', 'memory', 'peakRssBytes', 'planner']);
    expect(report).toMatchObject({ backend: 'cpu', planner: 'offsets/greedy-by-size', matchesNaive: true, device: { remote: { url: agent!.url } } });
    // The agent measured the plan in a process of its own, as a local exec does.
    expect(report.memory).toMatchObject({ planned: report.footprint, intermediates: report.footprint });
    expect(report.memory.peakRssDelta).toBe(report.memory.peakRss - report.memory.baselineRss);
    expect(report.memory.method).toMatch(/isolated process/);
  });

  it('says in one line what is missing or wrong', async () => {
    const [noUrl, badToken, budgeted] = await Promise.all([
      memplanHere('exec', 'zoo:blazeface', '--backend', 'remote', '--token', TOKEN),
      memplanHere('exec', 'zoo:blazeface', '--backend', 'remote', '--url', agent!.url, '--token', 'wrong-token-0123456789'),
      memplanHere('exec', 'zoo:blazeface', '--backend', 'remote', '--url', agent!.url, '--token', TOKEN, '--remote-backend', 'budgeted'),
    ]);
    expect(userErrorLine(noUrl)).toMatch(/--backend remote needs --url/);
    expect(userErrorLine(budgeted)).toMatch(/^memplan: --remote-backend budgeted: an agent cannot serve the budgeted backend \(.+\); it serves cpu, cpu-parallel, webgpu, browser\.$/);
    expect(userErrorLine(badToken)).toBe(`memplan: agent ${agent!.url} refused the token (401): the token is wrong.`);
  });
});

describe('an experiment with a remote backend', () => {
  const experiment = () =>
    parseExperiment(
      JSON.stringify({
        name: 'remote',
        approach: 'offsets',
        models: [{ source: 'zoo:blazeface', label: 'BlazeFace' }],
        planners: ['offsets/greedy-by-size'],
        backends: [{ kind: 'remote', url: agent!.url, token: TOKEN, backend: 'cpu', repetitions: 2, warmup: 1 }],
        repetitions: 1,
      }),
      join(dir, 'remote.json'),
    );
  let outcome: Awaited<ReturnType<typeof runExperiment>>;
  beforeAll(async () => {
    outcome = await runExperiment(experiment(), { root: dir, quiet: true });
  });

  it('measures every cell on the agent', () => {
    const [cell] = outcome.results as CellResult[];
    expect(cell).toMatchObject({ backend: expect.stringMatching(/^remote/), matchesNaive: true, device: { remote: { url: agent!.url } } });
    expect(cell.latencyMs?.runs).toBe(2);
  });

  it("keeps the agent's token out of run.json (results are committed)", async () => {
    expect(await readFile(join(outcome.dir, 'run.json'), 'utf8')).not.toContain(TOKEN);
  });
});
