import { browserReport } from '../backends/browser/browser-report.ts';
import { DeviceError, type DeviceHub } from './device-hub.ts';
import { printable } from '../io/printable.ts';
import { Refusal, sentence } from './http/refusal.ts';
import { checkJob, type CheckedJob } from './check-job.ts';
import type { Counters, JobContext } from './local-jobs.ts';
import { decodeJob, type Job } from './wire.ts';

export interface DeviceJobOptions extends JobContext {
  readonly hub: DeviceHub;
}

/**
 * A job for a browser that joined as a device (its body names `run.device`): parsed and
 * checked here as any job (its plan verified against the device's alignment), then run by
 * the page, which checks and verifies it again; resolves with the report. A device runs one
 * job at a time; the agent's own queue is not involved, as the job does not run on this
 * machine. Rejects with a Refusal that says what went wrong, in the status a client expects.
 */
export async function runDeviceJob(options: DeviceJobOptions, body: Buffer, signal: AbortSignal): Promise<unknown> {
  const { hub, counters, log } = options;
  const text = body.toString('utf8');
  let job: Job;
  try {
    job = decodeJob(text);
  } catch (error) {
    throw new Refusal(400, sentence((error as Error).message));
  }
  const id = job.run.device!;
  const target = hub.list().find((d) => d.id === id);
  if (target === undefined) throw new Refusal(404, `no device ${id} is connected to this agent.`);
  if (target.requiredAlignment === null) throw new Refusal(400, `device ${id} (${target.name}) has no WebGPU: ${target.error ?? 'no adapter'}`);
  let checked: CheckedJob;
  try {
    checked = checkJob(job, [{ kind: 'browser', requiredAlignment: target.requiredAlignment }], options.maxTensorBytes);
  } catch (error) {
    throw new Refusal(400, sentence((error as Error).message));
  }
  const number = ++counters.started;
  const started = performance.now();
  log(`job ${number}: ${printable(job.graph.name)}, ${printable(job.plan.planner)}, on device ${id} (${printable(target.name)}), ${job.run.warmup} warmup + ${job.run.repetitions} runs`);
  try {
    const result = await hub.run(id, text, { repetitions: job.run.repetitions, maxRunMs: options.maxRunSeconds * 1000, signal });
    const report = browserReport(result, { footprint: checked.job.plan.plan.footprint, seed: job.run.seed }, { deviceId: id, deviceName: target.name });
    counters.completed++;
    log(`job ${number}: done on device ${id} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return report;
  } catch (error) {
    if (!(error instanceof DeviceError)) {
      counters.failed++;
      throw new Refusal(500, `the job failed on device ${id}: ${sentence((error as Error).message)}`);
    }
    log(`job ${number}: ${error.message}`);
    throw deviceRefusal(error, counters, options.closing());
  }
}

/** The answer to a job a device did not bring back, counted where it belongs. */
function deviceRefusal(error: DeviceError, counters: Counters, closing: boolean): Refusal {
  switch (error.reason) {
    case 'timeout':
      counters.timedOut++;
      return new Refusal(504, error.message);
    case 'aborted':
      counters.abandoned++;
      return new Refusal(503, closing ? 'the agent is shutting down.' : error.message);
    case 'busy':
    case 'closing':
      return new Refusal(503, error.message, { 'Retry-After': '10' });
    case 'gone':
      counters.failed++;
      return new Refusal(502, error.message);
    case 'unknown-device':
      return new Refusal(404, error.message);
    case 'no-webgpu':
      return new Refusal(400, error.message);
    case 'failed':
      counters.failed++;
      return new Refusal(500, error.message);
  }
}
