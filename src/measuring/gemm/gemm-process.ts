/**
 * The process that runs one out-of-core GEMM alone (forked by run-gemm.ts), so that its
 * peak resident memory is the GEMM's: the tiles in its arena plus the runtime.
 */
import { serveMeasured } from '../isolation/measured-child.ts';
import { runGemmJob, type GemmJob } from './gemm-job.ts';

await serveMeasured('gemm-process', (raw, { baselineRss }) => {
  const message = raw as { type?: string; job?: GemmJob };
  return message?.type === 'job' && message.job !== undefined ? runGemmJob(message.job, baselineRss) : undefined;
});
