import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { execute } from '../../src/measuring/execute.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { memplan, memplanWithEnv, ROOT, userErrorLine } from '../cli/run-memplan.ts';
import { raw, TOKEN, onAgent } from './helpers.ts';

/** `memplan agent` as a user starts it: `node bin/memplan.js agent ...`, a process of its own on loopback. */
const BIN = 'bin/memplan.js';

interface AgentProcess {
  readonly child: ChildProcess;
  readonly url: string;
  stderr(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Starts the agent and waits (at most 20 s) for the line that says where it listens. */
function startAgentProcess(...args: string[]): Promise<AgentProcess> {
  const child = spawn(process.execPath, [BIN, 'agent', '--listen', '127.0.0.1:0', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', MEMPLAN_AGENT_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the agent did not say where it listens within 20 s:\n${stderr}`));
    }, 20_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited with code ${code} before listening:\n${stderr}`));
    });
  });
}

describe('memplan agent (a real agent process on loopback)', () => {
  let agent: AgentProcess;

  beforeAll(async () => {
    agent = await startAgentProcess('--token', TOKEN, '--max-run-seconds', '20', '--max-job-mb', '8');
  });

  afterAll(() => {
    if (agent && agent.child.exitCode === null) agent.child.kill('SIGKILL');
  });

  it('runs a job: the footprint and the proof against naive match a local run on zoo:blazeface', async () => {
    const graph = buildZooModel('zoo:blazeface');
    const options = { planner: findPlanner('offsets/greedy-by-size'), repetitions: 3, warmup: 1, seed: 1, alignment: 64 };
    const remote = await onAgent(graph, { url: agent.url, token: TOKEN, ...options });
    const local = await execute(graph, { backend: cpuBackend, ...options });
    expect(remote).toMatchObject({ backend: 'cpu', footprint: local.footprint, matchesNaive: true });
    expect(remote.device).toMatchObject({ remote: { url: agent.url } });
  });

  it('refuses a missing or wrong token (401) and runs nothing', async () => {
    const body = JSON.stringify({ protocol: 1 });
    expect((await raw(agent.url, '/v1/jobs', { token: null, body })).status).toBe(401);
    expect((await raw(agent.url, '/v1/jobs', { token: 'x'.repeat(32), body })).status).toBe(401);
    const info = await raw(agent.url, '/v1/info');
    expect((info.json as { jobs: { started: number } }).jobs.started).toBe(1);
  });

  it('exec --backend remote takes the token from MEMPLAN_AGENT_TOKEN, as the agent does: none on the command line', async () => {
    const run = await memplanWithEnv({ MEMPLAN_AGENT_TOKEN: TOKEN }, 'exec', 'zoo:blazeface', '--backend', 'remote', '--url', agent.url, '--repetitions', '1', '--warmup', '0', '--json');
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: 'cpu', matchesNaive: true, device: { remote: { url: agent.url } } });
    const none = await memplanWithEnv({ MEMPLAN_AGENT_TOKEN: '' }, 'exec', 'zoo:blazeface', '--backend', 'remote', '--url', agent.url);
    expect(userErrorLine(none)).toBe('memplan: --backend remote needs --url http://host:port and --token (or MEMPLAN_AGENT_TOKEN) of a memplan agent.');
  });

  it('takes its limits from the command line (the 504 and 413 themselves: agent.test.ts)', async () => {
    const info = await raw(agent.url, '/v1/info');
    expect(info.json).toMatchObject({ limits: { maxRunSeconds: 20, maxJobBytes: 8 * 2 ** 20 } });
  });

  it('stops on SIGTERM, with its job processes; its log names refusals but never a token', async () => {
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    expect(agent.stderr()).toMatch(/SIGTERM, stopping/);
    // It logged the jobs and the refused tokens, never a token itself.
    expect(agent.stderr()).toMatch(/refused a request from 127\.0\.0\.1: wrong token/);
    expect(agent.stderr()).not.toContain(TOKEN);
    expect(agent.stderr()).not.toContain('x'.repeat(32));
  });
});

describe('memplan agent --help', () => {
  it('states the body limit and how many bodies the agent holds at once', async () => {
    const help = await memplan('agent', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(
      /--max-job-mb largest job body accepted \(MiB\); a larger one gets 413 before it is read\. The agent holds at most twice this in bodies at once, one body per client/,
    );
  });
});

describe('memplan agent refuses to start', () => {
  it('without a token, or with one shorter than 16 characters', async () => {
    const [none, short] = await Promise.all([memplan('agent', '--listen', '127.0.0.1:0'), memplan('agent', '--listen', '127.0.0.1:0', '--token', 'short')]);
    expect(userErrorLine(none)).toBe('memplan: the agent needs a token: give --token or set MEMPLAN_AGENT_TOKEN.');
    expect(userErrorLine(short)).toBe('memplan: the token must be at least 16 characters long; it has 5.');
  });
});
