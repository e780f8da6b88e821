import type { Graph } from '../graph/ir.ts';
import { BackendError } from '../backends/backend-error.ts';
import type { ExecuteOptions } from './execute-options.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';
import type { PagePlacement } from './placement.ts';
import { buildJob } from './job-builder.ts';
import { browserBackend } from '../backends/browser/browser-backend.ts';
import { browserReport } from '../backends/browser/browser-report.ts';
import { openBrowserSession } from '../backends/browser/browser-session.ts';

/** A job still running in the local page after this long is called off (a backstop: a page that crashes or exits fails at once). */
const RUN_LIMIT_MS = 60 * 60_000;

/**
 * A job placed in a browser page (the browser backend): a headless browser started for this job alone (a
 * fresh process, as every measured execution gets), the network planned and verified here
 * with the alignment of the page's adapter, sent to the page in the agent's wire format,
 * run there inside the plan and inside the naive plan (outputs compared bit for bit in the
 * page), and reported as every backend reports.
 */
export async function executeInPage(source: Graph, options: ExecuteOptions, placement: PagePlacement): Promise<ExecuteReport> {
  if (options.peer || options.webPeer) throw new BackendError('the browser backend times the page alone; --peer (onnxruntime on this machine) does not combine with it.');
  const session = await openBrowserSession(placement.browser === undefined ? {} : { browser: placement.browser });
  try {
    const run = { backend: 'browser', repetitions: options.repetitions, warmup: options.warmup, seed: options.seed, verifyByExecution: options.verifyByExecution ?? true };
    // The page runs the WebGPU backend's kernels: activations fused as the browser backend says, no kernel scratch to plan.
    const job = buildJob(source, options, run, session.device.requiredAlignment, browserBackend);
    const result = await session.run(job.body, { repetitions: options.repetitions, maxRunMs: RUN_LIMIT_MS });
    const { executable, version, flags, adapterChoice } = session.launch;
    return browserReport(result, { footprint: job.verified.footprint, seed: options.seed }, { browser: { executable, version, flags, adapterChoice } });
  } finally {
    await session.close();
  }
}
