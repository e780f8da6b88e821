/**
 * A process of its own that opens Dawn's device and prints what a parent needs to plan for
 * it and to describe it (device-probe.ts starts it): the device info and the storage offset
 * alignment as one line of JSON, or the sentence of why there is no device. Dawn's own
 * messages go to this process's stderr, where the parent reads them.
 */
import { gpuContext } from './device.ts';

try {
  const context = await gpuContext();
  process.stdout.write(`${JSON.stringify({ info: context.info, alignment: context.limits.storageOffsetAlignment })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
}
process.exit(0);
