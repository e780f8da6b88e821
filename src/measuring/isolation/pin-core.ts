import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Where a measured process ran: the core it was pinned to, or why it was not pinned. */
export type Pinning = { readonly core: number; readonly method: string } | { readonly core: null; readonly why: string };

/**
 * Pins this process, every thread it has and every thread it starts later, to the machine's
 * last core, so that a single-thread timing is not moved between cores (and their caches)
 * by the scheduler. The last core, because the first is where most interrupts land. Linux
 * only, through util-linux's taskset; elsewhere, on one core, or where taskset is refused
 * (a container without the right), the process runs unpinned and says why.
 */
export function pinToLastCore(pid: number = process.pid): Pinning {
  if (process.platform !== 'linux') return { core: null, why: `pinning needs Linux's taskset; this is ${process.platform}` };
  const cores = availableParallelism();
  if (cores < 2) return { core: null, why: 'the machine has one core' };
  const core = cores - 1;
  try {
    execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(core), String(pid)], { stdio: 'ignore' });
    return { core, method: `taskset --all-tasks --cpu-list ${core}` };
  } catch (error) {
    return { core: null, why: `taskset failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}
