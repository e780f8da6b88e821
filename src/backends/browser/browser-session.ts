import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { BackendError } from '../backend-error.ts';
import { DeviceHub, DeviceError, type DeviceSummary } from '../../agent/device-hub.ts';
import { browserFlags, findBrowser } from './launch.ts';
import { pageBundle } from './page-bundle.ts';
import { PAGE_PATH, type PageResult } from './protocol.ts';

/** How the local browser was started, for the device info of its runs. */
export interface LaunchInfo {
  readonly executable: string;
  readonly version: string;
  readonly flags: readonly string[];
  readonly adapterChoice: 'swiftshader' | 'gpu';
}

/** A headless browser that has joined a loopback hub as a device with WebGPU, ready to run jobs. */
export interface BrowserSession {
  readonly device: DeviceSummary & { readonly requiredAlignment: number };
  readonly launch: LaunchInfo;
  run(text: string, options: { readonly repetitions: number; readonly maxRunMs: number }): Promise<PageResult>;
  close(): Promise<void>;
}

/** How long the browser may take to start and its page to join: 60 s, or $MEMPLAN_BROWSER_START_SECONDS. */
export const START_SECONDS_ENV = 'MEMPLAN_BROWSER_START_SECONDS';

function joinTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = env[START_SECONDS_ENV]?.trim();
  if (given === undefined || given === '') return 60_000;
  const seconds = Number(given);
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new BackendError(`$${START_SECONDS_ENV} must be a number of seconds > 0, not ${JSON.stringify(given)}.`);
  return seconds * 1000;
}

/**
 * Starts the device hub on a loopback port of its own, a headless Chromium-based browser
 * (through playwright-core, on the system's browser: memplan never downloads one), and
 * opens the device page in it with the hub's pairing code. Resolves once the page has
 * joined with a WebGPU adapter; a page that crashes, a browser that exits, or a page
 * without WebGPU is an error with its reason, at once.
 */
export async function openBrowserSession(options: { readonly browser?: string }): Promise<BrowserSession> {
  const executable = findBrowser(options.browser);
  const { flags, adapter } = browserFlags();
  const startMs = joinTimeoutMs();
  const hub = new DeviceHub();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (hub.handles(path)) void hub.handle(req, res);
    else {
      res.writeHead(404).end();
    }
  });
  let browser: Browser | undefined;
  const closeAll = async (): Promise<void> => {
    hub.close();
    await browser?.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  try {
    // The bundle is made before the browser starts: a build error is ours, not the page's.
    await pageBundle();
    const port = await listen(server);
    let playwright: typeof import('playwright-core');
    try {
      playwright = await import('playwright-core');
    } catch (error) {
      throw new BackendError(`the browser backend drives the browser with the npm package "playwright-core", which did not load: ${(error as Error).message}.`);
    }
    try {
      // Playwright's own headless switch is left off: the flags say --headless=new themselves.
      browser = await playwright.chromium.launch({ executablePath: executable, headless: false, args: flags, timeout: startMs });
    } catch (error) {
      const message = firstLine((error as Error).message);
      if (/Timeout \d+ms exceeded/.test(message)) throw new BackendError(`${executable} did not start within ${startMs / 1000} s ($${START_SECONDS_ENV} waits longer).`);
      throw new BackendError(`${executable} did not start: ${message}.`);
    }
    const launched = browser;
    const launch: LaunchInfo = { executable, version: launched.version(), flags, adapterChoice: adapter };
    const page = await launched.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // A crashed page or a browser gone fails whatever waits on the session, with what the page said last.
    let failed: (error: Error) => void = () => {};
    const failure = new Promise<never>((_, reject) => (failed = reject));
    failure.catch(() => undefined);
    const lastWords = (): string => (pageErrors.length > 0 ? ` (the page said: ${pageErrors.at(-1)})` : '');
    page.on('crash', () => failed(new BackendError(`the browser page crashed (out of memory?)${lastWords()}.`)));
    launched.on('disconnected', () => failed(new BackendError(`the browser exited${lastWords()}.`)));
    const joined = hub.nextJoin(startMs);
    // Waited on below; a session that fails before then must not leave it unhandled.
    joined.catch(() => undefined);
    try {
      await page.goto(`http://127.0.0.1:${port}${PAGE_PATH}#code=${hub.pairingCode}&name=${encodeURIComponent(`headless ${launch.version}`)}`);
    } catch (error) {
      throw new BackendError(`the browser could not open the device page: ${firstLine((error as Error).message)}${lastWords()}.`);
    }
    let device: DeviceSummary;
    try {
      device = await Promise.race([joined, failure]);
    } catch (error) {
      throw error instanceof DeviceError ? new BackendError(`the device page did not join from ${executable}${lastWords()}.`) : error;
    }
    if (device.requiredAlignment === null) {
      const hint = adapter === 'gpu' ? ` (memplan guessed this machine has a GPU; set MEMPLAN_BROWSER_ADAPTER=swiftshader to use the CPU adapter)` : '';
      throw new BackendError(`${executable} (${launch.version}) offers no WebGPU: ${device.error ?? 'no adapter'}${hint}`);
    }
    const ready = { ...device, requiredAlignment: device.requiredAlignment };
    return {
      device: ready,
      launch,
      run: (text, runOptions) => Promise.race([hub.run(ready.id, text, runOptions), failure]),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function firstLine(message: string): string {
  return (message.split('\n').find((line) => line.trim() !== '') ?? message).trim().replace(/\.$/, '');
}
