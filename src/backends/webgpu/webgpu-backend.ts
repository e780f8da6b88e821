import type { Backend, DeviceInfo, PrepareRequest } from '../backend.ts';
import { gpuContext, hasContext } from './device.ts';
import { probedDevice } from './device-probe.ts';
import type { WebGpuPreparedNetwork } from './network.ts';

export type { WebGpuPreparedNetwork } from './network.ts';

export interface WebGpuBackend extends Backend<'webgpu'> {
  prepare(request: PrepareRequest): Promise<WebGpuPreparedNetwork>;
}

/**
 * The WebGPU backend (Dawn for Node on Vulkan; a software driver such as Mesa's lavapipe
 * where there is no GPU: see docs/webgpu.md). What runs on the device, and how the plan's
 * memory is laid out, is network.ts, which the browser backend runs in a page too; this
 * object opens Dawn's device for it. A process that has not opened the device (one that
 * only plans for it and runs the network in a measured process) asks a probe process for
 * the device's description and alignment instead (device-probe.ts).
 */
export const webgpuBackend: WebGpuBackend = {
  kind: 'webgpu',
  title: 'WebGPU: WGSL kernels on Dawn (Vulkan; a software driver where there is no GPU)',
  traces: true,
  // Its kernels take every activation fuseActivations folds into a producer (Conv, FullyConnected, Add, Mul, Concat, the pools): a dispatch and a buffer fewer each, as GPU delegates do.
  fusesActivations: true,
  streamsWeights: false,
  parallelSteps: false,
  measuresRss: true,
  runsIn: 'process',

  /** Opens the device in this process (a measured process, before its baseline). */
  async open(): Promise<void> {
    await gpuContext();
  },

  async device(): Promise<DeviceInfo> {
    return hasContext() ? (await gpuContext()).info : (await probedDevice()).info;
  },

  /** The device's minStorageBufferOffsetAlignment (at least 16, for vector loads): every planned offset is a multiple of it. */
  async requiredAlignment(): Promise<number> {
    return hasContext() ? (await gpuContext()).limits.storageOffsetAlignment : (await probedDevice()).alignment;
  },

  async prepare(request: PrepareRequest): Promise<WebGpuPreparedNetwork> {
    // The kernels and the device-side layout are loaded by the process that runs on the device, not with the registry.
    const { prepareOnDevice } = await import('./network.ts');
    return prepareOnDevice(await gpuContext(), request);
  },
};
