/**
 * The messages between the agent (job-process.ts) and the job process it forks
 * (measuring/job-runner.ts), over IPC. They live here, beside the agent, because the agent
 * only starts the runner by its module path: the runner measures (it imports execute), and
 * the agent's layer sits below measuring.
 */
import type { ServedBackend } from './check-job.ts';

/** What the agent logs of an accepted job. */
export interface JobSummary {
  readonly graph: string;
  readonly planner: string;
  readonly backend: string;
  readonly warmup: number;
  readonly repetitions: number;
}

export type ToRunner = {
  readonly type: 'job';
  /** Bytes of the body (the wire format, UTF-8), which come on stdin. */
  readonly bytes: number;
  /** The backends the agent serves, and the most its tensors may take (checkJob). */
  readonly served: readonly ServedBackend[];
  readonly maxTensorBytes: number;
};
export type FromRunner =
  | { readonly type: 'ready' }
  | { readonly type: 'refused'; readonly message: string }
  | { readonly type: 'accepted'; readonly job: JobSummary }
  | { readonly type: 'done'; readonly report: unknown }
  | { readonly type: 'failed'; readonly message: string };
