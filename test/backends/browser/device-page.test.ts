import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserFlags } from '../../../src/backends/browser/launch.ts';
import { startAgent, type RunningAgent } from '../../../src/agent/agent.ts';
import { RemoteError } from '../../../src/measuring/remote-executor.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { memplan } from '../../cli/run-memplan.ts';
import { TOKEN, onAgent } from '../../agent/helpers.ts';
import { testBrowser } from './browser-available.ts';

const executable = testBrowser('test/backends/browser/device-page.test.ts');

/**
 * A phone played by a second headless browser: `memplan agent --devices` serves the device
 * page, the browser opens it with the pairing code, joins, and runs the jobs sent to it with
 * `exec --backend remote --device ID`.
 */
describe.skipIf(executable === undefined)('the device page (a second browser joins an agent as a device)', () => {
  let agent: RunningAgent;
  let browser: Browser;

  /** Opens the device page in a new tab and waits until the agent lists one device more. */
  async function joinedPage(): Promise<{ page: Page; id: string }> {
    const before = new Set(agent.hub!.list().map((d) => d.id));
    const page = await browser.newPage();
    await page.goto(`${agent.url}/device#code=${agent.hub!.pairingCode}&name=test%20phone`);
    await expect.poll(() => agent.hub!.list().some((d) => !before.has(d.id)), { timeout: 30_000 }).toBe(true);
    return { page, id: agent.hub!.list().find((d) => !before.has(d.id))!.id };
  }

  beforeAll(async () => {
    agent = await startAgent({ token: TOKEN, devices: true, maxRunSeconds: 120 });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: executable, headless: false, args: browserFlags().flags });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
  });

  it('a browser that opens the page joins; memplan list devices shows it; a BlazeFace job sent to it matches the naive plan', async () => {
    const { page, id } = await joinedPage();
    const device = agent.hub!.list().find((d) => d.id === id)!;
    expect(device).toMatchObject({ name: 'test phone', busy: false, jobs: 0 });
    expect(device.requiredAlignment).toBeGreaterThanOrEqual(16);

    const listed = await memplan('list', 'devices', '--url', agent.url, '--token', TOKEN);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id} +test phone +\\S`, 'm'));

    const report = await onAgent(buildZooModel('zoo:blazeface'), {
      url: agent.url,
      token: TOKEN,
      device: id,
      planner: findPlanner('offsets/greedy-by-size'),
      repetitions: 3,
      warmup: 1,
      seed: 1,
    });
    expect(report).toMatchObject({ backend: 'browser', planner: 'offsets/greedy-by-size', matchesNaive: true });
    expect(report.device).toMatchObject({ backend: 'browser', deviceId: id, deviceName: 'test phone', remote: { url: agent.url } });
    expect(report.memory.unavailable).toContain('peakRss');
    expect(agent.hub!.list().find((d) => d.id === id)).toMatchObject({ jobs: 1, busy: false });
    await expect.poll(() => page.textContent('#status')).toMatch(/done: outputs match the naive plan/);
    await page.close();
    await expect.poll(() => agent.hub!.list().some((d) => d.id === id)).toBe(false);
  }, 120_000);

  it('a device that disconnects in the middle of a job: the client gets a clear error at once, not a hang', async () => {
    const { page, id } = await joinedPage();
    const job = onAgent(buildZooModel('zoo:blazeface'), {
      url: agent.url,
      token: TOKEN,
      device: id,
      planner: findPlanner('offsets/greedy-by-size'),
      // Far more than the test waits for: the page is closed while it runs them.
      repetitions: 100_000,
      warmup: 0,
      seed: 1,
    });
    job.catch(() => undefined);
    await expect.poll(() => page.textContent('#status'), { timeout: 30_000 }).toMatch(/timed inferences/);
    const closed = performance.now();
    await page.close();
    const error = await job.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as RemoteError).status).toBe(502);
    expect((error as Error).message).toMatch(new RegExp(`lost its device .*: device ${id} \\(test phone\\) disconnected in the middle of the job`));
    expect(performance.now() - closed).toBeLessThan(5000);
  }, 120_000);

  it('a job for a device that is not connected, or for an agent without devices, is refused with a sentence', async () => {
    const graph = buildZooModel('zoo:blazeface');
    const options = { url: agent.url, token: TOKEN, planner: findPlanner('offsets/greedy-by-size'), repetitions: 1, warmup: 0, seed: 1 };
    await expect(onAgent(graph, { ...options, device: 'd404' })).rejects.toThrow(/has no device d404/);
    await expect(onAgent(graph, { ...options, device: 'd1', backend: 'cpu' })).rejects.toThrow(/is a browser; it runs the browser backend, not cpu/);
  });
});
