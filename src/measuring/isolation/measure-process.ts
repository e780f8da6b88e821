/**
 * The measured process of a network: `measureIsolated` (isolated.ts) forks one per
 * measurement, so that its memory is the plan's alone. It loads the project and opens the
 * backend's device (argv[2]: the backend's kind) before its baseline, takes one job (the
 * graph's own weights, if they travel, in a file it reads: constants-file.ts), re-derives the planned graph and records,
 * verifies the plan against them, prepares and runs the network, and reports latency,
 * outputs and memory (measure-job.ts). Asked to, it pins itself to one core first and says
 * where in its device info. It writes no files.
 */
import { findBackend } from '../../backends/registry.ts';
import { measure, type MeasureJob, type ToMeasureProcess } from './measure-job.ts';
import { serveMeasured } from './measured-child.ts';
import { pinToLastCore } from './pin-core.ts';

let job: MeasureJob | undefined;
const kind = process.argv[2];
await serveMeasured(
  'measure-process',
  (raw, context) => {
    const message = raw as ToMeasureProcess;
    if (message?.type === 'job' && job === undefined) job = message.job;
    else if (message?.type === 'go' && job !== undefined) {
      if (!job.pinCore) return measure(job, context);
      // Pinned before the network is prepared: every inference, warm-ups included, runs on that core.
      const pinning = pinToLastCore();
      return measure(job, context).then((result) => ({ ...result, device: { ...result.device, pinning } }));
    }
    return undefined;
  },
  // Start-up: the backend opened (and warmed up, where it does) before the baseline.
  kind === undefined
    ? undefined
    : async () => {
        const backend = findBackend(kind);
        // A budgeted run may change its budget as it runs and plan again (adapt-budget.ts): the planners load here, before the baseline, not inside a measured phase.
        if (backend.streamsWeights) await import('../budgeted/adapt-budget.ts');
        await backend.open?.();
        return backend.device();
      },
);
