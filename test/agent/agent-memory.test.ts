import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildJob } from '../../src/measuring/job-builder.ts';
import type { Graph, Node, Tensor } from '../../src/graph/ir.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { ROOT } from '../cli/run-memplan.ts';
import { raw, TOKEN, waitFor } from './helpers.ts';

/**
 * What a large job costs the agent's memory, measured from outside: `memplan agent` in a
 * process of its own, its resident memory read from /proc/<pid>/status. The body goes to the
 * job process unparsed (job-runner.ts parses it there), and the agent collects once it is done
 * with it (http/return-memory.ts).
 */

const MIB = 2 ** 20;

/** One 1x1 convolution over `channels` channels: its weights (channels² float32) are nearly all of the job. */
function wideGraph(channels: number): Graph {
  const t = (name: string, shape: number[], constant = false): [string, Tensor] => [name, { name, shape, dtype: 'float32', constant }];
  const conv: Node = {
    name: 'conv',
    op: 'Conv',
    kernel: [1, 1],
    strides: [1, 1],
    dilations: [1, 1],
    padding: { kind: 'same' },
    groups: 1,
    outChannels: channels,
    weightLayout: 'OHWI',
    activation: 'none',
    inputs: ['x', 'w', 'b'],
    outputs: ['y'],
  };
  return {
    name: 'wide',
    layout: 'NHWC',
    tensors: new Map([t('x', [1, 1, 1, channels]), t('w', [channels, 1, 1, channels], true), t('b', [channels], true), t('y', [1, 1, 1, channels])]),
    nodes: [conv],
    inputs: ['x'],
    outputs: ['y'],
  };
}

function residentMib(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

let child: ChildProcess | undefined;
/** The agent's working directory, home and temporary directory: empty, and to stay so. */
const dirs = ['cwd', 'home', 'tmp'].map((name) => mkdtempSync(join(tmpdir(), `memplan-agent-${name}-`)));
afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `memplan agent` as a user starts it; resolves with its address once it listens. */
function startAgentProcess(): Promise<string> {
  const [cwd, home, tmp] = dirs;
  child = spawn(process.execPath, [join(ROOT, 'bin/memplan.js'), 'agent', '--listen', '127.0.0.1:0', '--max-job-mb', '96', '--quiet'], {
    cwd,
    // Run from the sources, the command itself goes through tsx: with tsx's cache off, as job processes have it (child-module.ts).
    env: { ...process.env, MEMPLAN_AGENT_TOKEN: TOKEN, HOME: home, TMPDIR: tmp, TSX_DISABLE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url !== undefined) resolve(url);
    });
    child!.once('exit', (code) => reject(new Error(`the agent exited with ${code}:\n${stderr}`)));
  });
}

describe('the memory of a large job', () => {
  it('a 61 MiB job: the agent holds about the body once while it runs, is back to its idle size right after, and writes no file', async () => {
    const [url, built] = await Promise.all([
      startAgentProcess(),
      Promise.resolve().then(() =>
        buildJob(wideGraph(3464), { planner: findPlanner('offsets/greedy-by-size'), seed: 1 }, { backend: 'cpu', repetitions: 1, warmup: 0, seed: 1, verifyByExecution: false }, 4, {
          plansScratch: true,
        }),
      ),
    ]);
    const body = Buffer.from(built.body, 'utf8');
    const bodyMib = body.length / MIB;
    expect(bodyMib).toBeGreaterThan(55);
    const pid = child!.pid!;
    const idle = residentMib(pid);

    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMib(pid))), 10);
    const answer = await raw(url, '/v1/jobs', { body });
    clearInterval(sampler);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ report: { backend: 'cpu', footprint: expect.any(Number) } });

    // Before: the agent parsed the body itself and peaked at 5.7 times it (a 61 MiB job: +350 MiB).
    expect(peak - idle).toBeLessThan(2 * bodyMib);
    // Before: 236 MiB more for 5 s and longer. Now back within a margin of half the body, at once.
    let after = residentMib(pid);
    await waitFor(
      () => (after = residentMib(pid)) < idle + bodyMib / 2,
      3000,
      `the agent to be back to its idle size (idle ${idle.toFixed(1)} MiB, now ${after.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB)`,
    ).catch(() => undefined);
    expect(after - idle, `idle ${idle.toFixed(1)} MiB, after ${after.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB`).toBeLessThan(bodyMib / 2);
    // Neither the agent nor its job processes wrote anything where a process writes files.
    for (const dir of dirs) expect(readdirSync(dir), dir).toEqual([]);
  }, 90_000);
});
