import { BackendError } from '../../../src/backends/backend-error.ts';
import { webgpuBackend } from '../../../src/backends/webgpu/webgpu-backend.ts';

/**
 * Whether this machine has a WebGPU adapter (a Vulkan driver Dawn can use). Test files that
 * need one skip as a whole when it does not, saying so on the console; on Debian 12,
 * `scripts/install-vulkan.sh` installs one (see docs/webgpu.md).
 */
export async function webgpuAvailable(file: string): Promise<boolean> {
  try {
    await webgpuBackend.device();
    return true;
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    console.warn(`SKIPPED ${file}: ${error.message}`);
    return false;
  }
}
