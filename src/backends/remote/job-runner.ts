/**
 * The job process: `memplan agent` forks one per job (job-process.ts) so that a job that
 * hangs or runs past its time can be killed without touching the agent. It loads the
 * project, says `ready`, takes exactly one job over IPC, measures it with executeGraph
 * (the plan it was sent, replayed and verified again), sends the report and exits.
 * It writes no files.
 */
import { executeGraph } from '../execute.ts';
import { findBackend } from '../registry.ts';
import { replayPlanner } from './check-job.ts';
import type { Job } from './wire.ts';

export type ToRunner = { readonly type: 'job'; readonly job: Job };
export type FromRunner =
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly report: unknown }
  | { readonly type: 'failed'; readonly message: string };

function send(message: FromRunner, then?: () => void): void {
  if (!process.connected) process.exit(1);
  process.send?.(message, undefined, {}, () => then?.());
}

async function run(job: Job): Promise<unknown> {
  return executeGraph(job.graph, {
    backend: findBackend(job.run.backend),
    planner: replayPlanner(job.plan),
    repetitions: job.run.repetitions,
    warmup: job.run.warmup,
    seed: job.run.seed,
    weights: 'file',
    records: job.records,
    alignment: job.plan.alignment,
    verifyByExecution: job.run.verifyByExecution,
    ...(job.run.workers === undefined ? {} : { workers: job.run.workers }),
  });
}

if (process.send === undefined) {
  process.stderr.write('job-runner.ts is started by memplan agent; it is not a command.\n');
  process.exit(2);
}
// The agent went away: nothing left to report to.
process.on('disconnect', () => process.exit(1));
let taken = false;
process.on('message', (message: ToRunner) => {
  if (message?.type !== 'job' || taken) return;
  taken = true;
  run(message.job).then(
    (report) => send({ type: 'done', report }, () => process.exit(0)),
    (error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
  );
});
send({ type: 'ready' });
