import type { DeviceInfo } from '../../backend.ts';
import { gpuFlags, isSoftwareAdapter, openDevice, type GpuContext, type GpuLimits, type TimingMethod } from '../../webgpu/gpu-context.ts';
import { page } from './page-globals.ts';

/** Why a page cannot run WebGPU, in one sentence the user can act on. */
export class NoWebGpu extends Error {}

/**
 * The page's WebGPU device, opened as the Node backend opens Dawn's (gpu-context.ts): the
 * same limits and alignment, timestamp queries where the adapter has them. A browser keeps
 * its own event loop running, so waits need no help.
 */
export async function pageGpuContext(): Promise<GpuContext> {
  if (!page.isSecureContext) {
    throw new NoWebGpu(
      `this page is not a secure context (${page.location.origin}), and browsers offer WebGPU only to secure ones: open it as http://localhost (adb reverse, an SSH tunnel) or over https, or list this origin under chrome://flags/#unsafely-treat-insecure-origin-as-secure.`,
    );
  }
  const gpu = page.navigator.gpu;
  if (gpu === undefined) throw new NoWebGpu('this browser has no WebGPU (navigator.gpu is absent): use a recent Chrome, Edge or Safari, or start Chromium with --enable-unsafe-webgpu.');
  let adapter: GPUAdapter | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    throw new NoWebGpu(`the browser refused a WebGPU adapter: ${(error as Error).message}`);
  }
  if (adapter === null) throw new NoWebGpu('the browser found no WebGPU adapter (no usable GPU; headless Chromium without a GPU needs --use-webgpu-adapter=swiftshader).');
  return openDevice(gpu, adapter, {
    timestamps: true,
    flags: gpuFlags(globalThis),
    settle: (work) => work,
    describe: pageDeviceInfo,
  });
}

function pageDeviceInfo(adapter: GPUAdapter, limits: GpuLimits, timing: TimingMethod, adapterLimits: Record<string, number>): DeviceInfo {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const fallback = info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter ?? false;
  const software = isSoftwareAdapter(info, fallback);
  // Browsers may leave any of these empty (they hide what could identify the machine): only what they say is kept.
  const said = Object.fromEntries((['vendor', 'architecture', 'device', 'description'] as const).flatMap((key) => (typeof info[key] === 'string' && info[key] !== '' ? [[key, info[key]]] : [])));
  return {
    backend: 'browser',
    adapter: `${[...new Set(Object.values(said))].join(' ') || 'unnamed adapter'}${software ? ' (software)' : ''}`,
    ...said,
    fallbackAdapter: fallback,
    software,
    timing,
    storageOffsetAlignment: limits.storageOffsetAlignment,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    adapterLimits,
    features: [...adapter.features].sort(),
    userAgent: page.navigator.userAgent,
    crossOriginIsolated: page.crossOriginIsolated === true,
    cores: page.navigator.hardwareConcurrency ?? null,
  };
}
