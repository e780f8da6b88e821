/**
 * The measured process: `measureIsolated` (isolated.ts) forks one per measurement, so that
 * its memory is the plan's alone. It loads the project and opens the backend's device
 * (argv[2]: the backend's kind), records its baseline resident size,
 * resets the peak, says `ready`, takes one job (and the constants' values, if they travel),
 * re-derives the planned graph and records, verifies the plan against them, prepares and
 * runs the network, and reports latency, outputs and memory. It writes no files.
 */
import { BackendError } from '../backend-error.ts';
import { readRss, resetPeakRss } from '../process-memory.ts';
import { findBackend } from '../registry.ts';
import { measure, type FromMeasureProcess, type MeasureJob, type ToMeasureProcess } from './measure-job.ts';

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

function send(message: FromMeasureProcess, then?: () => void): void {
  if (!process.connected) process.exit(1);
  process.send?.(message, undefined, {}, () => then?.());
}

if (process.send === undefined) {
  process.stderr.write('measure-process is started by memplan to measure one execution alone; it is not a command.\n');
  process.exit(2);
}
// The harness went away: nothing left to report to.
process.on('disconnect', () => process.exit(1));

// Start-up includes opening the backend's device (a GPU runtime and its driver): the
// baseline is taken after it, so that the figures are the network's.
const kind = process.argv[2];
if (kind !== undefined) await findBackend(kind).device();
collect();
const baselineRss = readRss().rss;
resetPeakRss();
let job: MeasureJob | undefined;
const constants = new Map<string, Float32Array>();
process.on('message', (message: ToMeasureProcess) => {
  if (message?.type === 'job' && job === undefined) {
    job = message.job;
  } else if (message?.type === 'constant') {
    constants.set(message.name, message.data);
  } else if (message?.type === 'go' && job !== undefined) {
    measure(job, constants, baselineRss, collect).then(
      (result) => send({ type: 'done', result }, () => process.exit(0)),
      (error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error), backend: error instanceof BackendError }, () => process.exit(1)),
    );
  }
});
send({ type: 'ready' });
