import { availableParallelism, cpus, endianness, hostname, platform, release, totalmem, type, version, arch } from 'node:os';
import type { Backend } from '../backends/backend.ts';
import type { AgentDevice } from './wire.ts';

/** The agent's machine and what each backend it serves says about its device (WebGPU: the adapter). */
export async function agentDevice(backends: readonly Backend[]): Promise<AgentDevice> {
  const served = await Promise.all(backends.map(async (b) => ({ kind: b.kind, requiredAlignment: await b.requiredAlignment(), device: await b.device() })));
  const gpu = served.find((b) => b.kind === 'webgpu')?.device;
  const cores = typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
  return {
    hostname: hostname(),
    os: { platform: platform(), type: type(), release: release(), version: typeof version === 'function' ? version() : '', arch: arch() },
    // Some kernels (Android's among them) hide the CPU model: cpus() may be empty.
    cpu: { model: cpus()[0]?.model?.trim() || 'unknown', cores },
    memoryBytes: totalmem(),
    node: process.version,
    endianness: endianness(),
    backends: served,
    ...(gpu === undefined ? {} : { gpu }),
  };
}
