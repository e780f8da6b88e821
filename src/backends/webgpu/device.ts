import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DeviceInfo } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { describeDriver, driverCandidates, selectDriver, type DriverChoice } from './driver.ts';
import { gpuFlags, isSoftwareAdapter, openDevice, type GpuContext, type GpuFlags, type GpuLimits, type TimingMethod } from './gpu-context.ts';

export type { GpuContext, GpuFlags, GpuLimits, TimingMethod } from './gpu-context.ts';

let pending: Promise<GpuContext> | undefined;

/**
 * The process's WebGPU device, created on first use: the Vulkan driver is chosen first (see
 * driver.ts), then Dawn's instance, an adapter and a device (with timestamp queries when the
 * adapter has them). A failure is remembered for the process, so every call answers at once.
 */
export function gpuContext(): Promise<GpuContext> {
  pending ??= createContext();
  return pending;
}

/** Whether this process has opened (or is opening) Dawn's device. */
export function hasContext(): boolean {
  return pending !== undefined;
}

/** Forgets the device (after it was lost), so the next call creates a new one. */
export function forgetContext(): void {
  pending = undefined;
}

async function createContext(): Promise<GpuContext> {
  const candidates = driverCandidates();
  // Dawn's module is loaded after the driver is chosen: the Vulkan loader reads the environment.
  selectDriver(candidates[0]);
  let webgpu: typeof import('webgpu');
  try {
    webgpu = await import('webgpu');
  } catch (error) {
    throw new BackendError(`the WebGPU backend needs the npm package "webgpu" (Dawn for Node), which did not load on ${process.platform}-${process.arch}: ${(error as Error).message}.`);
  }
  const flags = gpuFlags(webgpu.globals);
  const tried: string[] = [];
  for (const choice of candidates) {
    selectDriver(choice);
    tried.push(describeDriver(choice));
    const gpu = webgpu.create(['disable-dawn-features=timestamp_quantization']);
    let adapter: GPUAdapter | null = null;
    try {
      adapter = await deviceWork(gpu.requestAdapter({ powerPreference: 'high-performance' }));
    } catch {
      adapter = null;
    }
    if (adapter !== null) return openDawnDevice(gpu, adapter, choice, flags);
  }
  throw new BackendError(
    `no WebGPU adapter is available (Vulkan drivers tried: ${tried.join('; ')}): install Mesa's lavapipe with scripts/install-vulkan.sh (Debian 12), or SwiftShader with "apt-get install chromium", or point MEMPLAN_VULKAN_ICD at a Vulkan driver's ICD json (see docs/webgpu.md).`,
  );
}

/** Dawn's device on this adapter (see gpu-context.ts openDevice), described with the Vulkan driver it runs on. */
function openDawnDevice(gpu: GPU, adapter: GPUAdapter, driver: DriverChoice, flags: GpuFlags): Promise<GpuContext> {
  return openDevice(gpu, adapter, {
    timestamps: process.env.MEMPLAN_WEBGPU_TIMING !== 'wall',
    flags,
    settle: deviceWork,
    describe: (a, limits, timing, adapterLimitValues) => deviceInfo(a, driver, limits, timing, adapterLimitValues),
    onLost: forgetContext,
  });
}

function deviceInfo(adapter: GPUAdapter, driver: DriverChoice, limits: GpuLimits, timing: TimingMethod, adapterLimitValues: Record<string, number>): DeviceInfo {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const fallback = info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter ?? false;
  // Dawn's Vulkan description is "<driver name>: <driver info>".
  const description = info.description ?? '';
  const colon = description.indexOf(': ');
  return {
    backend: 'webgpu',
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description,
    driver: colon >= 0 ? description.slice(colon + 2) : description,
    fallbackAdapter: fallback,
    software: isSoftwareAdapter(info, fallback),
    icd: driver.icd ?? 'system default',
    icdSource: driver.source,
    timing,
    storageOffsetAlignment: limits.storageOffsetAlignment,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    adapterLimits: adapterLimitValues,
    runtime: `webgpu ${packageVersion()} (Dawn), node ${process.version}`,
  };
}

function packageVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(readFileSync(require.resolve('webgpu/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Waits for a promise of the device. Dawn for Node resolves some of them (pipeline
 * compilation) only while Node's event loop is alive, without holding it open itself: a
 * timer keeps it alive until the promise settles.
 */
export async function deviceWork<T>(work: Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => {}, 1);
  try {
    return await work;
  } finally {
    clearInterval(keepAlive);
  }
}
