import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserBackend } from '../../src/backends/browser/browser-backend.ts';
import { executionRecords } from '../../src/backends/execution-records.ts';
import { plannedProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { testBrowser } from '../backends/browser/browser-available.ts';
import { memplan, ROOT, userErrorLine } from './run-memplan.ts';

const browser = testBrowser('test/cli/exec-browser.test.ts');

describe.skipIf(browser === undefined)('memplan exec --backend browser (headless Chromium of this machine)', () => {
  it('runs BlazeFace in an offsets arena: --json reports matchesNaive true, the adapter, latency and the GPU buffers, and RSS as unavailable (null)', async () => {
    const run = await memplan('exec', 'zoo:blazeface', '--backend', 'browser', '--planner', 'offsets/greedy-by-size', '--repetitions', '3', '--warmup', '1', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as {
      backend: string;
      matchesNaive: boolean;
      footprint: number;
      latencyMs: { runs: number; median: number };
      memory: Record<string, unknown> & { device: Record<string, number> };
      peakRssBytes: unknown;
      device: Record<string, unknown>;
    };
    expect(report).toMatchObject({ backend: 'browser', matchesNaive: true });
    expect(report.device).toMatchObject({ backend: 'browser' });
    expect(String(report.device.adapter)).toMatch(/\w/);
    expect(typeof report.device.software).toBe('boolean');
    expect(report.latencyMs.runs).toBe(3);
    // An offsets plan is one arena: one buffer of the plan's footprint.
    expect(report.memory).toMatchObject({ planned: report.footprint, intermediates: Math.ceil(report.footprint / 4) * 4 });
    expect(report.memory.device.intermediates).toBe(report.memory.intermediates);
    expect(report.memory.unavailable).toEqual(['baselineRss', 'peakRss', 'peakRssDelta', 'rest']);
    for (const key of ['baselineRss', 'peakRss', 'peakRssDelta', 'rest']) expect(report.memory[key]).toBeNull();
    expect(report.peakRssBytes).toBeNull();
    // The page runs the WebGPU backend's kernels: the plan holds the records they run, activations fused (BlazeFace's 16 ReLUs after its sums have none).
    const { problem } = plannedProblem(buildZooModel('zoo:blazeface'), executionRecords(browserBackend));
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: Number(report.device.storageOffsetAlignment) });
    expect(report.footprint).toBe(plan.footprint);
  }, 120_000);
});

describe.concurrent('memplan exec --backend browser: bad input is one sentence and exit 2', () => {
  it('a browser that is not there', async () => {
    const line = userErrorLine(await memplan('exec', 'zoo:blazeface', '--backend', 'browser', '--browser', '/nonexistent/chromium'));
    expect(line).toBe('memplan: the browser "/nonexistent/chromium" is not an executable file, nor a program on PATH.');
  });

  it('a browser that never starts: said when its start time is up, and the command ends right after', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memplan-stuck-browser-'));
    try {
      const stuck = join(dir, 'stuck-browser');
      await writeFile(stuck, '#!/bin/sh\nsleep 600\n', { mode: 0o755 });
      const child = spawn(process.execPath, ['bin/memplan.js', 'exec', 'zoo:blazeface', '--backend', 'browser', '--browser', stuck], {
        cwd: ROOT,
        env: { ...process.env, MEMPLAN_BROWSER_START_SECONDS: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let saidAt = 0;
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        saidAt ||= performance.now();
      });
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const endedAfterMs = performance.now() - saidAt;
      expect(userErrorLine({ status, stdout: '', stderr })).toBe(`memplan: ${stuck} did not start within 2 s ($MEMPLAN_BROWSER_START_SECONDS waits longer).`);
      // Clean-up gets 2 s of grace; the exit once came 32 s after the sentence.
      expect(endedAfterMs).toBeLessThan(8_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('--browser with another backend, --device without remote', async () => {
    expect(userErrorLine(await memplan('exec', 'zoo:blazeface', '--browser', 'chromium'))).toBe('memplan: --browser names the browser of --backend browser; --backend cpu starts none.');
    expect(userErrorLine(await memplan('exec', 'zoo:blazeface', '--device', 'd1'))).toBe('memplan: --device names a browser that joined a memplan agent; give it with --backend remote --url --token.');
  });

  it('--peer, which times onnxruntime on this machine', async () => {
    expect(userErrorLine(await memplan('exec', 'zoo:blazeface', '--backend', 'browser', '--peer', '--browser', '/nonexistent/chromium'))).toMatch(
      /^memplan: the browser backend times the page alone; --peer/,
    );
  });
});
