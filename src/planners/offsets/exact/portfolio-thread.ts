import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { makeProblem } from '../../../core/problem.ts';
import { improveProblem } from './improver.ts';
import { MeetingPoint } from './meeting-point.ts';
import type { ThreadJob, ThreadResult } from './portfolio.ts';
import { epochMs } from '../../../core/clock.ts';

/**
 * The portfolio's second thread (portfolio.ts): improver.ts on the job's problem until the
 * shared deadline, a stop agreed at a meeting, or its own end; then its answer is posted
 * and the thread marks itself finished (in that order: the first thread reads the answer
 * once it sees the mark).
 */
const { job, port } = workerData as { job: ThreadJob; port: MessagePort };
const meeting = new MeetingPoint(job.buffer, 1, job.deadline);
try {
  const problem = makeProblem(job.name, job.records, job.operatorCount);
  const outcome = improveProblem(problem, { ...job.options, timeLimitMs: Math.max(0, job.deadline - epochMs()) }, meeting);
  const result: ThreadResult = { offsets: outcome.offsets, arena: outcome.arena, bound: outcome.bound, nodes: outcome.nodes, trajectory: outcome.trajectory };
  port.postMessage(result);
  meeting.finish(outcome.arena, outcome.bound);
} catch (error) {
  port.postMessage({ error: String((error as Error)?.stack ?? error) } satisfies ThreadResult);
  meeting.finish(Infinity, 0, true);
}
