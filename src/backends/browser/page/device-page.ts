/**
 * The device page: what a browser runs to become a memplan device (the headless Chromium
 * of `--backend browser`, or a phone that opened `memplan agent --devices`' page). It opens
 * WebGPU, joins the hub with the pairing code, and runs the jobs the hub announces, one at a
 * time (run-job.ts). Bundled for the browser by page-bundle.ts; see protocol.ts for the
 * exchange.
 */
import type { GpuContext } from '../../webgpu/gpu-context.ts';
import { DEVICE_API, type DeviceJoin, type DeviceWelcome, type HubEvent, type PageGpu, type PageOutcome } from '../protocol.ts';
import { NoWebGpu, pageGpuContext } from './page-gpu.ts';
import { page, type PageElement } from './page-globals.ts';
import { runJob } from './run-job.ts';
import * as z from 'zod';

// The page decodes jobs with the wire schemas (zod). The page's Content-Security-Policy forbids
// evaluating code, and zod's test of whether it may (for its faster compiled checks) would
// log a refusal in the console: it is told not to try.
z.config({ jitless: true });

const element = (id: string): PageElement => {
  const found = page.document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
};
const status = element('status');
const log = element('log');

function say(line: string, isStatus = false): void {
  if (isStatus) status.textContent = line;
  const entry = page.document.createElement('li');
  entry.textContent = `${new Date().toLocaleTimeString()}  ${line}`;
  log.append(entry);
}

/** The pairing code and name: from the address (`#code=...&name=...`) the first time, else from the form. */
async function pairing(first: boolean): Promise<{ code: string; name: string }> {
  const params = new URLSearchParams(page.location.hash.replace(/^#/, ''));
  const name = params.get('name') ?? describeBrowser(page.navigator.userAgent);
  const code = params.get('code');
  if (first && code !== null && code !== '') return { code, name };
  const form = element('pair');
  const input = element('code');
  form.hidden = false;
  return new Promise((resolve) => {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      form.hidden = true;
      resolve({ code: (input.value ?? '').trim(), name });
    });
  });
}

/** A short name from the user agent: the platform in its first parentheses and the browser. */
function describeBrowser(userAgent: string): string {
  const platform = /\(([^)]*)\)/.exec(userAgent)?.[1]?.split(';').slice(0, 2).join(';').trim() ?? 'browser';
  const browser = /(Edg|Chrome|Firefox|Version)\/(\d+)/.exec(userAgent);
  return `${platform}${browser ? `, ${browser[1] === 'Version' ? 'Safari' : browser[1]} ${browser[2]}` : ''}`.slice(0, 80);
}

async function post(path: string, body: unknown, session?: string): Promise<Response> {
  return fetch(`${DEVICE_API}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(session ? { Authorization: `Bearer ${session}` } : {}) },
    body: JSON.stringify(body),
  });
}

async function errorOf(response: Response): Promise<string> {
  try {
    return ((await response.json()) as { error?: string }).error ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

async function openGpu(): Promise<{ gpu: PageGpu; context?: GpuContext }> {
  try {
    const context = await pageGpuContext();
    return { gpu: { ok: true, info: context.info, alignment: context.limits.storageOffsetAlignment }, context };
  } catch (error) {
    const message = error instanceof NoWebGpu ? error.message : `WebGPU failed: ${(error as Error).message}`;
    return { gpu: { ok: false, error: message } };
  }
}

/** Reads the hub's event stream, one JSON object per line, until it ends. */
async function* events(session: string): AsyncGenerator<HubEvent> {
  const response = await fetch(`${DEVICE_API}events`, { headers: { Authorization: `Bearer ${session}` } });
  if (!response.ok || response.body === null) throw new Error(await errorOf(response));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += value;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '') yield JSON.parse(line) as HubEvent;
      newline = pending.indexOf('\n');
    }
  }
}

async function serveJob(number: number, session: string, context: GpuContext, cancelled: Set<number>): Promise<void> {
  let outcome: PageOutcome;
  try {
    const response = await fetch(`${DEVICE_API}jobs/${number}`, { headers: { Authorization: `Bearer ${session}` } });
    if (!response.ok) throw new Error(await errorOf(response));
    const text = await response.text();
    const result = await runJob(text, context, { progress: (line) => say(line, true), cancelled: () => cancelled.has(number) });
    say(`job ${number} done: outputs ${result.matchesNaive === null ? 'not checked' : result.matchesNaive ? 'match the naive plan' : 'DIFFER from the naive plan'}`, true);
    outcome = { result };
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    say(`job ${number} failed: ${message}`, true);
    outcome = { error: message };
  }
  const sent = await post(`jobs/${number}/result`, outcome, session);
  if (!sent.ok) say(`the result of job ${number} was not taken: ${await errorOf(sent)}`);
}

async function main(): Promise<void> {
  // Phones dim and throttle a page whose screen sleeps; ask to keep it on (best effort).
  void page.navigator.wakeLock?.request('screen').catch(() => undefined);
  const { gpu, context } = await openGpu();
  say(gpu.ok ? `WebGPU: ${String(gpu.info.adapter)}` : gpu.error, !gpu.ok);
  for (let attempt = 0; ; attempt++) {
    const { code, name } = await pairing(attempt === 0);
    const join: DeviceJoin = { code, name, gpu };
    const response = await post('join', join);
    if (!response.ok) {
      say(`could not join: ${await errorOf(response)}`, true);
      // A wrong code may be typed again; anything else (too many tries, a full hub) ends here.
      if (response.status === 401) continue;
      return;
    }
    const welcome = (await response.json()) as DeviceWelcome;
    say(`joined as device ${welcome.id}${gpu.ok ? '; waiting for jobs' : ' (no WebGPU: this device cannot run jobs)'}`, true);
    element('device').textContent = welcome.id;
    const alive = setInterval(() => void post('alive', {}, welcome.session).catch(() => undefined), welcome.aliveSeconds * 1000);
    const cancelled = new Set<number>();
    // The hub announces a job again to a stream opened after it: each is run once.
    const taken = new Set<number>();
    let running: Promise<void> = Promise.resolve();
    try {
      for await (const event of events(welcome.session)) {
        if (event.type === 'cancel') cancelled.add(event.job);
        else if (event.type === 'job' && context !== undefined && !taken.has(event.job)) {
          taken.add(event.job);
          running = running.then(() => serveJob(event.job, welcome.session, context, cancelled));
        }
      }
      await running;
      say('the hub closed the connection (memplan stopped?); reload the page to join again.', true);
    } catch (error) {
      say(`lost the connection to memplan: ${(error as Error).message}; reload the page to join again.`, true);
    } finally {
      clearInterval(alive);
    }
    return;
  }
}

void main().catch((error: unknown) => say(`the device page failed: ${(error as Error).message}`, true));
