import type { DeviceInfo } from '../backend.ts';
import { BackendError } from '../backend-error.ts';

/**
 * The WebGPU device as the kernels, memory and timing code use it, whoever opened it: Dawn
 * for Node (device.ts) or a browser page (browser/page/). Nothing here touches Node, so the
 * browser bundle holds exactly this code.
 */

/** How inference time is measured on this device. */
export type TimingMethod = 'timestamp-query' | 'wall-clock';

/** The numeric WebGPU flags (Dawn for Node does not put them on globalThis; browsers do). */
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

/** One device, with what the backend needs to know about it. */
export interface GpuContext {
  /** The instance the adapter came from: held for as long as the device is used (Dawn stops a device whose instance is collected). */
  readonly gpu: GPU;
  readonly device: GPUDevice;
  readonly flags: GpuFlags;
  readonly limits: GpuLimits;
  readonly timing: TimingMethod;
  readonly info: DeviceInfo;
  /** Compiled pipelines by WGSL source, and bind group layouts by binding signature: shared by every prepared network. */
  readonly pipelines: Map<string, GPUComputePipeline>;
  readonly layouts: Map<string, GPUBindGroupLayout>;
  /**
   * Waits for a promise of the device. Dawn for Node settles some of them only while
   * Node's event loop is alive, so its context keeps the loop busy meanwhile (device.ts);
   * a browser's loop never sleeps, and waits as it is.
   */
  settle<T>(work: Promise<T>): Promise<T>;
}

/** Vector loads need 16-byte aligned bindings; devices that allow less still get 16. */
export const MIN_ALIGNMENT = 16;

/** What opening a device needs besides the adapter. */
export interface OpenOptions {
  /** Ask for timestamp queries when the adapter has them (else: wall clock). */
  readonly timestamps: boolean;
  readonly flags: GpuFlags;
  readonly settle: GpuContext['settle'];
  /** The device info to report, from the adapter and what was opened. */
  describe(adapter: GPUAdapter, limits: GpuLimits, timing: TimingMethod, adapterLimits: Record<string, number>): DeviceInfo;
  /** Called when the device is lost (the owner forgets it). */
  onLost?(): void;
}

/**
 * Opens a device on an adapter with the limits the backend relies on: the storage offset
 * alignment (at least 16), the largest buffers and bindings, and as many storage buffers per
 * shader as the adapter has; timestamp queries when asked and available.
 */
export async function openDevice(gpu: GPU, adapter: GPUAdapter, options: OpenOptions): Promise<GpuContext> {
  const timestamps = options.timestamps && adapter.features.has('timestamp-query');
  const a = adapter.limits;
  const alignment = Math.max(a.minStorageBufferOffsetAlignment, MIN_ALIGNMENT);
  let device: GPUDevice;
  try {
    device = await options.settle(
      adapter.requestDevice({
        label: 'memplan',
        requiredFeatures: timestamps ? ['timestamp-query'] : [],
        requiredLimits: {
          minStorageBufferOffsetAlignment: alignment,
          maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
          maxBufferSize: a.maxBufferSize,
          maxStorageBuffersPerShaderStage: a.maxStorageBuffersPerShaderStage,
        },
      }),
    );
  } catch (error) {
    throw new BackendError(`the WebGPU adapter (${adapter.info.description || adapter.info.device || adapter.info.vendor}) refused a device: ${(error as Error).message}.`);
  }
  if (options.onLost) void device.lost.then(() => options.onLost?.());
  const d = device.limits;
  const limits: GpuLimits = {
    storageOffsetAlignment: d.minStorageBufferOffsetAlignment,
    maxStorageBufferBindingSize: d.maxStorageBufferBindingSize,
    maxBufferSize: d.maxBufferSize,
    maxWorkgroupsPerDimension: d.maxComputeWorkgroupsPerDimension,
    maxStorageBuffersPerShaderStage: d.maxStorageBuffersPerShaderStage,
  };
  const timing: TimingMethod = timestamps ? 'timestamp-query' : 'wall-clock';
  return {
    gpu,
    device,
    flags: options.flags,
    limits,
    timing,
    info: options.describe(adapter, limits, timing, adapterLimits(a)),
    pipelines: new Map(),
    layouts: new Map(),
    settle: options.settle,
  };
}

/** The adapter's own limits that bound memory and dispatches (what it reports, before the device request). */
export function adapterLimits(a: GPUSupportedLimits): Record<string, number> {
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

/** The flags from an object that holds WebGPU's globals (a browser's globalThis, Dawn's `globals`), with the spec's values where absent. */
export function gpuFlags(globals: object): GpuFlags {
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

/** Whether the adapter runs on the CPU (a fallback adapter, or a known software rasterizer). */
export function isSoftwareAdapter(info: GPUAdapterInfo, fallback: boolean): boolean {
  return fallback || info.architecture === 'software' || /llvmpipe|lavapipe|swiftshader/i.test(`${info.description ?? ''} ${info.device ?? ''} ${info.architecture ?? ''} ${info.vendor ?? ''}`);
}
