import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent/agent.ts';
import { agentInfo, RemoteError } from '../../src/measuring/remote-executor.ts';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { execute } from '../../src/measuring/execute.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { interleavedBranches } from '../fixtures/graphs.ts';
import { jobRequest, raw, TOKEN, tinyGraph, waitFor, onAgent } from './helpers.ts';

/**
 * A real agent on loopback, started in this process; every job runs in the agent's own
 * child process. `agent` has roomy limits; `strict` an 8 s run cap (a job runs its plan and the naive reference in processes of their own, started on the compiled build where it is fresh: a small job takes one to three seconds on 2 busy cores; the job that runs into the cap keeps a core busy until then), 256 KiB jobs and no queue.
 */
let agent: RunningAgent;
let strict: RunningAgent;

beforeAll(async () => {
  [agent, strict] = await Promise.all([
    startAgent({ token: TOKEN, maxJobBytes: 4 * 2 ** 20, maxRunSeconds: 60 }),
    startAgent({ token: TOKEN, maxJobBytes: 256 * 1024, maxRunSeconds: 8, maxQueuedJobs: 0 }),
  ]);
});

afterAll(async () => {
  await Promise.all([agent?.close(), strict?.close()]);
});

const tiny = (url: string, extra: { repetitions?: number; timeoutSeconds?: number } = {}) =>
  onAgent(tinyGraph(), { url, token: TOKEN, planner: findPlanner('offsets/greedy-by-size'), repetitions: 2, warmup: 1, seed: 1, ...extra });

/** The RemoteError a promise rejects with. */
async function remoteError(promise: Promise<unknown>): Promise<RemoteError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RemoteError);
  return error as RemoteError;
}

describe('a remote job', () => {
  it('gives the footprint and the proof against naive that a local run gives (zoo:blazeface); jobs sent together queue', async () => {
    const graph = buildZooModel('zoo:blazeface');
    const ids = ['offsets/greedy-by-size', 'shared-objects/greedy-by-size-improved'];
    const options = (id: string) => ({ planner: findPlanner(id), repetitions: 3, warmup: 1, seed: 1, alignment: 64 });
    const before = agent.counters().completed;
    // Both at once: the agent runs them one after the other and answers each.
    const remotes = await Promise.all(ids.map((id) => onAgent(graph, { url: agent.url, token: TOKEN, ...options(id) })));
    expect(agent.counters().completed).toBe(before + 2);
    for (const [k, id] of ids.entries()) {
      const [remote, local] = [remotes[k], await execute(graph, { backend: cpuBackend, ...options(id) })];
      expect(remote).toMatchObject({ backend: 'cpu', planner: id, footprint: local.footprint, matchesNaive: true });
      expect(local.matchesNaive).toBe(true);
      expect(remote.latencyMs.runs).toBe(3);
      expect(Object.keys(remote).sort()).toEqual(Object.keys(local).sort());
      // The agent's machine rides along with its backend's own device info.
      expect(remote.device).toMatchObject({ backend: 'cpu', remote: { url: agent.url, node: process.version, cpu: { cores: expect.any(Number) } } });
    }
  });

  it('runs the order it was planned for: a fused, memory-aware network gives the local footprint and matches naive', async () => {
    const options = { planner: findPlanner('offsets/greedy-by-size'), repetitions: 1, warmup: 0, seed: 1, records: { fuseActivations: true, order: 'memory-aware' as const } };
    const remote = await onAgent(interleavedBranches(), { url: agent.url, token: TOKEN, ...options });
    const local = await execute(interleavedBranches(), { backend: cpuBackend, ...options });
    expect(remote).toMatchObject({ footprint: local.footprint, matchesNaive: true });
  });

  it('the agent describes its machine, backends and limits (GET /v1/info)', async () => {
    const info = await agentInfo(agent.url, TOKEN);
    expect(info.device.backends).toEqual([{ kind: 'cpu', requiredAlignment: 4, device: expect.objectContaining({ backend: 'cpu' }) }]);
    expect(info.limits).toEqual({ maxJobBytes: 4 * 2 ** 20, maxRunSeconds: 60 });
    expect(info.device.memoryBytes).toBeGreaterThan(0);
  });
});

describe('the agent refuses', () => {
  it('requests without the token or with a wrong one (401), and runs nothing', async () => {
    const before = agent.counters().started;
    const body = JSON.stringify(jobRequest(tinyGraph()));
    for (const token of [null, 'wrong-token-0123456789abcdef', TOKEN.slice(0, -1)]) {
      const job = await raw(agent.url, '/v1/jobs', { token, body });
      expect(job.status).toBe(401);
      expect(job.json?.error).toMatch(token === null ? /^the request has no token/ : /^the token is wrong\.$/);
      expect((await raw(agent.url, '/v1/info', { token })).status).toBe(401);
    }
    expect((await remoteError(agentInfo(agent.url, 'wrong-token-0123456789abcdef'))).message).toBe(`agent ${agent.url} refused the token (401): the token is wrong.`);
    expect((await remoteError(onAgent(tinyGraph(), { url: agent.url, token: 'nope', planner: findPlanner('offsets/naive'), repetitions: 1, warmup: 0, seed: 1 }))).status).toBe(401);
    expect(agent.counters().started).toBe(before);
  });

  it('a job larger than its limit (413), declared or streamed, without reading it', async () => {
    const big = Buffer.alloc(600 * 1024, 0x20);
    const declared = await raw(strict.url, '/v1/jobs', { body: big });
    expect(declared.status).toBe(413);
    expect(declared.json?.error).toBe("the job is 0.6 MiB (614400 bytes), more than the agent's limit of 0.3 MiB (262144 bytes).");
    const streamed = await raw(strict.url, '/v1/jobs', { body: big, chunked: true });
    expect(streamed.status).toBe(413);
    expect(streamed.json?.error).toBe("the job is larger than the agent's limit of 0.3 MiB (262144 bytes).");
    // The client knows the limit from /v1/info and does not send at all.
    const error = await remoteError(onAgent(buildZooModel('zoo:blazeface'), { url: strict.url, token: TOKEN, planner: findPlanner('offsets/naive'), repetitions: 1, warmup: 0, seed: 1 }));
    expect(error.status).toBe(413);
    expect(error.message).toMatch(/^the job for blazeface is 0\.\d MiB, more than the 0\.3 MiB agent http:\/\/127\.0\.0\.1:\d+ takes \(raise its --max-job-mb\)\.$/);
    expect(strict.counters().started).toBe(0);
  });

  it('malformed bodies, other protocol versions and planted invalid plans (400), in one sentence', async () => {
    const before = agent.counters().started;
    const request = jobRequest(tinyGraph());
    const bad = async (body: unknown): Promise<string> => {
      const answer = await raw(agent.url, '/v1/jobs', { body: typeof body === 'string' ? body : JSON.stringify(body) });
      expect(answer.status, answer.text).toBe(400);
      const sentence = answer.json?.error as string;
      expect(sentence).toMatch(/^[^\n]+\.$/);
      return sentence;
    };
    expect(await bad('{"protocol": 1, "graph": ')).toMatch(/^the job is not valid JSON \(/);
    expect(await bad({ ...request, protocol: 99 })).toBe('the job is protocol 99 but this side speaks protocol 1; run the same memplan version on both sides.');
    const planted = { ...request, plan: { ...request.plan, offsets: request.plan.offsets!.map(() => 0) } };
    expect(await bad(planted)).toMatch(/^the plan of offsets\/greedy-by-size fails the verifier: records \S+ and \S+ are live together/);
    const tensors = request.graph.tensors.map((t) => (t.name === 'c' ? { ...t, shape: [1, 4, 4, 8] } : t));
    expect(await bad({ ...request, graph: { ...request.graph, tensors } })).toBe('node conv2 (Conv) declares output c as [1,4,4,8] but its inputs give [1,8,8,8].');
    expect(await bad({ ...request, run: { ...request.run, backend: 'tpu' } })).toBe('this agent serves cpu; the job asks for "tpu".');
    expect(agent.counters().started).toBe(before);
    // The client passes the sentence on.
    const error = await remoteError(onAgent(tinyGraph(), { url: agent.url, token: TOKEN, backend: 'webgpu', planner: findPlanner('offsets/naive'), repetitions: 1, warmup: 0, seed: 1 }));
    expect(error.message).toBe(`agent ${agent.url} serves cpu, not webgpu.`);
  });

  it('other paths and methods', async () => {
    expect((await raw(agent.url, '/v1/nothing')).status).toBe(404);
    expect((await raw(agent.url, '/v1/jobs', { method: 'GET' })).status).toBe(405);
  });

  it('to start without a token of 16 characters', async () => {
    await expect(startAgent({ token: 'short' })).rejects.toThrow('the agent needs a token of at least 16 characters.');
  });

  it('to serve the budgeted backend, whose runs need a weights file that a job does not carry', async () => {
    await expect(startAgent({ token: '0123456789abcdef', port: 0, backends: ['cpu', 'budgeted'] })).rejects.toThrow(
      'an agent cannot serve the budgeted backend (its runs stream weights from a file that a job does not carry); it serves cpu, cpu-parallel, webgpu, browser.',
    );
  });
});

describe('the agent survives', () => {
  it('a job past its time cap: 504, the job process killed, the next job runs', async () => {
    const long = remoteError(tiny(strict.url, { repetitions: 1_000_000 }));
    await waitFor(() => strict.counters().started === 1, 10_000, 'the long job to start');
    // No queue on this agent: a job sent meanwhile is turned away at once.
    const busy = await raw(strict.url, '/v1/jobs', { body: JSON.stringify(jobRequest(tinyGraph())) });
    expect(busy.status).toBe(503);
    expect(busy.json?.error).toBe('the agent is busy with a job and 0 waiting; try again later.');
    const error = await long;
    expect(error.status).toBe(504);
    expect(error.message).toBe(`agent ${strict.url} stopped the job for tiny at its time limit (504): the job ran past the agent's limit of 8 s and was stopped.`);
    expect(strict.counters().timedOut).toBe(1);
    const next = await tiny(strict.url);
    expect(next.matchesNaive).toBe(true);
  });

  it('a client that goes away mid-job: the job is dropped and the next one runs', async () => {
    const before = agent.counters();
    const body = JSON.stringify(jobRequest(tinyGraph(), 'offsets/greedy-by-size', { repetitions: 1_000_000 }));
    const client = new AbortController();
    const gone = raw(agent.url, '/v1/jobs', { body, signal: client.signal }).catch((e: Error) => e);
    await waitFor(() => agent.counters().started > before.started, 10_000, 'the long job to start');
    // Cut the connection from the client side, the way a killed harness would.
    client.abort();
    await waitFor(() => agent.counters().abandoned > before.abandoned, 10_000, 'the agent to drop the job');
    expect(await gone).toBeInstanceOf(Error);
    const next = await tiny(agent.url, { timeoutSeconds: 20 });
    expect(next.matchesNaive).toBe(true);
  });

  it('leaves a clear error when nothing listens (connection refused)', async () => {
    const port = await freePort();
    const error = await remoteError(tiny(`http://127.0.0.1:${port}`));
    expect(error.message).toBe(`cannot reach agent http://127.0.0.1:${port}: connection refused; is memplan agent running there?`);
  });
});

/** A port nothing listens on (taken from the OS, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
