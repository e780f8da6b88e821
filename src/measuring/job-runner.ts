/**
 * The job process: `memplan agent` forks one per job (job-process.ts) so that a job that
 * hangs or runs past its time can be killed without touching the agent. It loads the
 * project, says `ready`, and takes job bodies as the agent received them (the bytes on its
 * stdin, their length and the agent's limits in an IPC message): it parses
 * and checks each (structure, shapes, the plan through the verifier); a job that fails is
 * `refused` with its sentence and the process waits for the next; the first that passes is
 * `accepted`, measured with execute (the plan it was sent, checked with the verifier again),
 * reported, and the process exits. Parsing here rather than in the agent keeps a job's
 * parsed graph and weights (several times the body) out of the agent: they go with this
 * process. It writes no files.
 */
import { execute } from './execute.ts';
import { findBackend } from '../backends/registry.ts';
import { checkJob } from '../agent/check-job.ts';
import type { FromRunner, ToRunner } from '../agent/job-messages.ts';
import { decodeJob, type Job } from '../agent/wire.ts';

function send(message: FromRunner, then?: () => void): void {
  if (!process.connected) process.exit(1);
  process.send?.(message, undefined, {}, () => then?.());
}

/** The job to run, checked; or the sentence that says why it cannot run. */
function check(message: ToRunner, body: Buffer): Job | string {
  try {
    const job = decodeJob(body.toString('utf8'));
    // The agent sends a job for a device to the device; one that gets here has a hub-less agent.
    if (job.run.device !== undefined) return 'this agent serves no devices; start it with --devices.';
    return checkJob(job, message.served, message.maxTensorBytes).job;
  } catch (error) {
    // Whatever stops a job from being read or checked is about that job.
    return error instanceof Error ? error.message : String(error);
  }
}

async function run(job: Job): Promise<unknown> {
  return execute(job.graph, {
    backend: findBackend(job.run.backend),
    planner: job.plan,
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

/**
 * Bodies come on stdin, a stream of one body after another, and their lengths in the IPC
 * messages (the two channels do not keep step: bytes may come before their message).
 * A pipe, rather than the body inside an IPC message, as serializing it would copy the whole
 * body in the agent, and leave that much more memory with the agent afterwards.
 */
const received: Buffer[] = [];
let receivedBytes = 0;
let awaited: { readonly bytes: number; readonly then: (body: Buffer) => void } | undefined;
function deliver(): void {
  if (awaited === undefined || receivedBytes < awaited.bytes) return;
  const all = Buffer.concat(received, receivedBytes);
  const { bytes, then } = awaited;
  awaited = undefined;
  received.length = 0;
  receivedBytes = all.length - bytes;
  if (receivedBytes > 0) received.push(all.subarray(bytes));
  then(all.subarray(0, bytes));
}
process.stdin.on('data', (chunk: Buffer) => {
  received.push(chunk);
  receivedBytes += chunk.length;
  deliver();
});

let taken = false;
process.on('message', (message: ToRunner) => {
  if (message?.type !== 'job' || taken || awaited !== undefined) return;
  awaited = { bytes: message.bytes, then: (body) => take(message, body) };
  deliver();
});

function take(message: ToRunner, body: Buffer): void {
  const job = check(message, body);
  if (typeof job === 'string') {
    send({ type: 'refused', message: job });
    return;
  }
  taken = true;
  send({ type: 'accepted', job: { graph: job.graph.name, planner: job.plan.planner, backend: job.run.backend, warmup: job.run.warmup, repetitions: job.run.repetitions } });
  run(job).then(
    (report) => send({ type: 'done', report }, () => process.exit(0)),
    (error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
  );
}
send({ type: 'ready' });
