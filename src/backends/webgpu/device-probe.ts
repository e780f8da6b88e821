import { execFile } from 'node:child_process';
import type { DeviceInfo } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { childModule } from '../child-module.ts';

/** What a process that plans for the WebGPU device, but does not run on it, needs to know. */
export interface ProbedDevice {
  readonly info: DeviceInfo;
  /** The device's storage offset alignment: every planned offset is a multiple of it. */
  readonly alignment: number;
}

/**
 * Lines Dawn writes to stderr from native code on every start with a software Vulkan driver
 * (lavapipe reports a million dynamic buffers, which Dawn lowers to 16). They say nothing
 * about a run, and Node cannot silence native output in its own process; a probe's stderr
 * can be read, so they are dropped there and every other line is passed on.
 */
const DAWN_NOISE: readonly RegExp[] = [/^Warning: maxDynamic(Uniform|Storage)BuffersPerPipelineLayout artificially reduced from \d+ to \d+ to fit dynamic offset allocation limit\.$/];

/** The stderr of a probe without Dawn's start-up noise (what is left ends in a line break, or is empty). */
export function withoutDawnNoise(stderr: string): string {
  const kept = stderr.split('\n').filter((line) => line !== '' && !DAWN_NOISE.some((noise) => noise.test(line.trim())));
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}

const PROBE_SECONDS = 60;
let probe: Promise<ProbedDevice> | undefined;

/**
 * The WebGPU device as a process of its own finds it (probe-device.ts), once per process: a
 * command that plans for the device and runs the network in a measured process (exec, run,
 * list backends, the agent's info) never opens Dawn itself, so Dawn's start-up noise is not
 * printed and its instance costs this process nothing.
 */
export function probedDevice(): Promise<ProbedDevice> {
  probe ??= new Promise<ProbedDevice>((resolve, reject) => {
    const { path, execArgv, env } = childModule(import.meta.url, './probe-device');
    execFile(process.execPath, [...execArgv, path], { env, timeout: PROBE_SECONDS * 1000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      process.stderr.write(withoutDawnNoise(stderr));
      const line = stdout.trim().split('\n').pop() ?? '';
      let answer: { info?: DeviceInfo; alignment?: number; error?: string } | undefined;
      try {
        answer = JSON.parse(line) as typeof answer;
      } catch {
        answer = undefined;
      }
      if (answer?.info !== undefined && answer.alignment !== undefined) resolve({ info: answer.info, alignment: answer.alignment });
      else if (answer?.error !== undefined) reject(new BackendError(answer.error));
      else reject(new BackendError(`the WebGPU device probe ended without an answer${error?.killed ? ` within ${PROBE_SECONDS} s` : ''}${error ? ` (${error.message.split('\n')[0]})` : ''}.`));
    });
  });
  return probe;
}
