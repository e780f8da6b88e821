import type { Backend, DeviceInfo } from '../backend.ts';
import { BackendError } from '../backend-error.ts';

let probed: Promise<{ info: DeviceInfo; alignment: number }> | undefined;

/** The page's adapter, asked once per process of a browser started for it (a second or two). */
function probe(): Promise<{ info: DeviceInfo; alignment: number }> {
  probed ??= (async () => {
    // The browser driver (playwright-core, the device hub) is loaded when a browser is wanted, not with the registry.
    const { openBrowserSession } = await import('./browser-session.ts');
    const session = await openBrowserSession({});
    try {
      const { info, requiredAlignment } = session.device;
      if (info === undefined) throw new BackendError('the browser page joined without describing its adapter.');
      return { info: { ...info, browser: { executable: session.launch.executable, version: session.launch.version } }, alignment: requiredAlignment };
    } finally {
      await session.close();
    }
  })();
  return probed;
}

/**
 * WebGPU in a browser page (browser/): the WebGPU backend's own kernels and memory layout,
 * bundled for the page, in a headless Chromium-based browser of the system's (SwiftShader
 * where the machine has no GPU). A job runs whole in the page, plan and naive reference
 * alike (runsIn 'page': execute.ts places it there) instead of being prepared here.
 */
export const browserBackend: Backend<'browser'> = {
  kind: 'browser',
  title: "WebGPU in a headless browser: the WebGPU backend's kernels in a page of the system's Chromium (SwiftShader where there is no GPU)",
  traces: false,
  // Its kernels take every activation fuseActivations folds into a producer (Conv, FullyConnected, Add, Mul, Concat, the pools): a dispatch and a buffer fewer each, as GPU delegates do.
  fusesActivations: true,
  streamsWeights: false,
  parallelSteps: false,
  measuresRss: false,
  runsIn: 'page',

  async device(): Promise<DeviceInfo> {
    return (await probe()).info;
  },

  async requiredAlignment(): Promise<number> {
    return (await probe()).alignment;
  },

  async prepare(): Promise<never> {
    throw new BackendError('the browser backend runs whole jobs in its page (execute places them there); it prepares no network in this process.');
  },
};
