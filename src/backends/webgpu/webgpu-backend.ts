import type { Backend, DeviceInfo, PrepareRequest } from '../backend.ts';
import { gpuContext } from './device.ts';
import { prepareOnDevice, type WebGpuPreparedNetwork } from './network.ts';

export type { WebGpuPreparedNetwork } from './network.ts';

export interface WebGpuBackend extends Backend<'webgpu'> {
  prepare(request: PrepareRequest): Promise<WebGpuPreparedNetwork>;
}

/**
 * The WebGPU backend (Dawn for Node on Vulkan; a software driver such as Mesa's lavapipe
 * where there is no GPU: see docs/webgpu.md). What runs on the device, and how the plan's
 * memory is laid out, is network.ts, which the browser backend runs in a page too; this
 * object opens Dawn's device for it.
 */
export const webgpuBackend: WebGpuBackend = {
  kind: 'webgpu',
  title: 'WebGPU: WGSL kernels on Dawn (Vulkan; a software driver where there is no GPU)',
  traces: false,
  streamsWeights: false,
  parallelSteps: false,
  measuresRss: true,
  runsIn: 'process',

  async device(): Promise<DeviceInfo> {
    return (await gpuContext()).info;
  },

  /** The device's minStorageBufferOffsetAlignment (at least 16, for vector loads): every planned offset is a multiple of it. */
  async requiredAlignment(): Promise<number> {
    return (await gpuContext()).limits.storageOffsetAlignment;
  },

  async prepare(request: PrepareRequest): Promise<WebGpuPreparedNetwork> {
    return prepareOnDevice(await gpuContext(), request);
  },
};
