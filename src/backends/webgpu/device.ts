import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DeviceInfo } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { describeDriver, driverCandidates, selectDriver, type DriverChoice } from './driver.ts';

/** How inference time is measured on this device. */
export type TimingMethod = 'timestamp-query' | 'wall-clock';

/** The numeric WebGPU flags (Dawn for Node does not put them on globalThis). */
export interface GpuFlags {
  readonly STORAGE: number;
  readonly COPY_SRC: number;
  readonly COPY_DST: number;
  readonly MAP_READ: number;
  readonly QUERY_RESOLVE: number;
  readonly COMPUTE_STAGE: number;
  readonly MAP_MODE_READ: number;
}

/** The limits the backend works within (those of the device it requested). */
export interface GpuLimits {
  /** Storage bindings start at multiples of this: plans are made with it. */
  readonly storageOffsetAlignment: number;
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxWorkgroupsPerDimension: number;
  readonly maxStorageBuffersPerShaderStage: number;
}

/** One Dawn device for the process, with what the backend needs to know about it. */
export interface GpuContext {
  /** Dawn's instance: held for as long as the device is used (collecting it stops the device). */
  readonly gpu: GPU;
  readonly device: GPUDevice;
  readonly flags: GpuFlags;
  readonly limits: GpuLimits;
  readonly timing: TimingMethod;
  readonly info: DeviceInfo;
  /** Compiled pipelines by WGSL source, and bind group layouts by binding signature: shared by every prepared network. */
  readonly pipelines: Map<string, GPUComputePipeline>;
  readonly layouts: Map<string, GPUBindGroupLayout>;
}

/** Vector loads need 16-byte aligned bindings; devices that allow less still get 16. */
const MIN_ALIGNMENT = 16;

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
    if (adapter !== null) return openDevice(gpu, adapter, choice, flags);
  }
  throw new BackendError(
    `no WebGPU adapter is available (Vulkan drivers tried: ${tried.join('; ')}): install Mesa's lavapipe with scripts/install-vulkan.sh (Debian 12), or SwiftShader with "apt-get install chromium", or point MEMPLAN_VULKAN_ICD at a Vulkan driver's ICD json (see docs/webgpu.md).`,
  );
}

async function openDevice(gpu: GPU, adapter: GPUAdapter, driver: DriverChoice, flags: GpuFlags): Promise<GpuContext> {
  const wallOnly = process.env.MEMPLAN_WEBGPU_TIMING === 'wall';
  const timestamps = !wallOnly && adapter.features.has('timestamp-query');
  const a = adapter.limits;
  const alignment = Math.max(a.minStorageBufferOffsetAlignment, MIN_ALIGNMENT);
  let device: GPUDevice;
  try {
    device = await deviceWork(adapter.requestDevice({
      label: 'memplan',
      requiredFeatures: timestamps ? ['timestamp-query'] : [],
      requiredLimits: {
        minStorageBufferOffsetAlignment: alignment,
        maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
        maxBufferSize: a.maxBufferSize,
        maxStorageBuffersPerShaderStage: a.maxStorageBuffersPerShaderStage,
      },
    }));
  } catch (error) {
    throw new BackendError(`the WebGPU adapter (${adapter.info.description || adapter.info.device}) refused a device: ${(error as Error).message}.`);
  }
  void device.lost.then(() => forgetContext());
  const d = device.limits;
  const limits: GpuLimits = {
    storageOffsetAlignment: d.minStorageBufferOffsetAlignment,
    maxStorageBufferBindingSize: d.maxStorageBufferBindingSize,
    maxBufferSize: d.maxBufferSize,
    maxWorkgroupsPerDimension: d.maxComputeWorkgroupsPerDimension,
    maxStorageBuffersPerShaderStage: d.maxStorageBuffersPerShaderStage,
  };
  const timing: TimingMethod = timestamps ? 'timestamp-query' : 'wall-clock';
  return { gpu, device, flags, limits, timing, info: deviceInfo(adapter, driver, limits, timing, adapterLimits(a)), pipelines: new Map(), layouts: new Map() };
}

/** The adapter's own limits that bound memory and dispatches (what it reports, before the device request). */
function adapterLimits(a: GPUSupportedLimits): Record<string, number> {
  return {
    maxBufferSize: a.maxBufferSize,
    maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
    minStorageBufferOffsetAlignment: a.minStorageBufferOffsetAlignment,
    maxStorageBuffersPerShaderStage: a.maxStorageBuffersPerShaderStage,
    maxComputeWorkgroupStorageSize: a.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: a.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupsPerDimension: a.maxComputeWorkgroupsPerDimension,
  };
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
    software: fallback || info.architecture === 'software' || /llvmpipe|lavapipe|swiftshader/i.test(`${description} ${info.device}`),
    icd: driver.icd ?? 'system default',
    icdSource: driver.source,
    timing,
    storageOffsetAlignment: limits.storageOffsetAlignment,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    adapterLimits: adapterLimitValues,
    runtime: `webgpu ${packageVersion()} (Dawn), node ${process.version}`,
  };
}

function gpuFlags(globals: object): GpuFlags {
  const g = globals as { GPUBufferUsage?: GPUBufferUsage; GPUShaderStage?: GPUShaderStage; GPUMapMode?: GPUMapMode };
  const usage = g.GPUBufferUsage;
  const stage = g.GPUShaderStage;
  const map = g.GPUMapMode;
  return {
    STORAGE: usage?.STORAGE ?? 0x80,
    COPY_SRC: usage?.COPY_SRC ?? 0x4,
    COPY_DST: usage?.COPY_DST ?? 0x8,
    MAP_READ: usage?.MAP_READ ?? 0x1,
    QUERY_RESOLVE: usage?.QUERY_RESOLVE ?? 0x200,
    COMPUTE_STAGE: stage?.COMPUTE ?? 0x4,
    MAP_MODE_READ: map?.READ ?? 0x1,
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
