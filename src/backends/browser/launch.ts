import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { BackendError } from '../backend-error.ts';

/** Chromium-based browsers memplan looks for on PATH, in this order. It never downloads one. */
export const BROWSER_NAMES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome', 'microsoft-edge', 'microsoft-edge-stable', 'brave-browser'];

/** Where browsers live on macOS, which puts none on PATH. */
const APP_PATHS: readonly string[] = [
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
];

/** Set to `swiftshader` (the CPU adapter Chromium ships) or `gpu` to override what memplan guesses from the machine. */
export const ADAPTER_ENV = 'MEMPLAN_BROWSER_ADAPTER';
/** A browser to use when none is given (experiments, CI); `--browser` wins over it. */
export const BROWSER_ENV = 'MEMPLAN_BROWSER';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The browser to start: the one given (a path, or a name on PATH), else $MEMPLAN_BROWSER,
 * else the first of BROWSER_NAMES on PATH (then the usual macOS places).
 */
export function findBrowser(given: string | undefined, env: NodeJS.ProcessEnv = process.env, isExecutable: (path: string) => boolean = executable): string {
  const wanted = given ?? (env[BROWSER_ENV]?.trim() || undefined);
  const onPath = (name: string): string | undefined => {
    if (isAbsolute(name) || name.includes('/')) return isExecutable(name) ? name : undefined;
    for (const dir of (env.PATH ?? '').split(delimiter)) {
      if (dir !== '' && isExecutable(join(dir, name))) return join(dir, name);
    }
    return undefined;
  };
  if (wanted !== undefined) {
    const found = onPath(wanted);
    if (found === undefined) throw new BackendError(`the browser ${JSON.stringify(wanted)}${given === undefined ? ` (from $${BROWSER_ENV})` : ''} is not an executable file, nor a program on PATH.`);
    return found;
  }
  for (const name of BROWSER_NAMES) {
    const found = onPath(name);
    if (found !== undefined) return found;
  }
  const app = APP_PATHS.find(isExecutable);
  if (app !== undefined) return app;
  throw new BackendError(
    `no Chromium-based browser was found (looked on PATH for ${BROWSER_NAMES.join(', ')}): install one (Debian: apt-get install chromium) or give its path with --browser; memplan never downloads a browser.`,
  );
}

/** Whether the machine has a GPU a browser could use: a DRM render node on Linux; other systems always have one. */
export function hasGpu(platform: NodeJS.Platform = process.platform, dri = '/dev/dri'): boolean {
  if (platform !== 'linux') return true;
  try {
    return existsSync(dri) && readdirSync(dri).some((name) => name.startsWith('renderD'));
  } catch {
    return false;
  }
}

/**
 * Chromium's switches for a headless page with WebGPU: WebGPU on (Linux still keeps it
 * behind a switch), timestamp queries at full resolution and full adapter info (developer
 * features), and, where the machine has no GPU (or $MEMPLAN_BROWSER_ADAPTER says so),
 * SwiftShader, Chromium's own Vulkan on the CPU.
 */
export function browserFlags(env: NodeJS.ProcessEnv = process.env, gpu: boolean = hasGpu()): { flags: string[]; adapter: 'swiftshader' | 'gpu' } {
  const chosen = env[ADAPTER_ENV]?.trim();
  if (chosen !== undefined && chosen !== '' && chosen !== 'swiftshader' && chosen !== 'gpu') {
    throw new BackendError(`$${ADAPTER_ENV} must be swiftshader or gpu, not ${JSON.stringify(chosen)}.`);
  }
  const adapter = chosen === 'swiftshader' || chosen === 'gpu' ? chosen : gpu ? 'gpu' : 'swiftshader';
  const flags = ['--headless=new', '--enable-unsafe-webgpu', '--enable-webgpu-developer-features'];
  if (adapter === 'swiftshader') flags.push('--use-webgpu-adapter=swiftshader');
  else if (process.platform === 'linux') flags.push('--enable-features=Vulkan');
  return { flags, adapter };
}
