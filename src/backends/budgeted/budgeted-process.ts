/**
 * The measured process of a budgeted execution: `executeBudgeted` forks one per
 * measurement (isolation/measured-child.ts), so that its memory is the plan's alone. Its
 * start-up, before the baseline, opens the budgeted backend (its loader thread is the
 * runtime's, like a device); then it takes one job, re-derives the budgeted records,
 * verifies the plan, and runs it with the weights streamed from the weights file. It reads
 * the weights file and writes nothing.
 */
import { serveMeasured } from '../isolation/measured-child.ts';
import { budgetedBackend } from './budgeted-backend.ts';
import { measureBudgeted, type BudgetedJob } from './budgeted-job.ts';

await serveMeasured(
  'budgeted-process',
  (message, context) => {
    const job = (message as { type?: string; job?: BudgetedJob })?.type === 'job' ? (message as { job: BudgetedJob }).job : undefined;
    return job === undefined ? undefined : measureBudgeted(job, context);
  },
  async () => {
    await budgetedBackend.open?.();
    return budgetedBackend.device();
  },
);
