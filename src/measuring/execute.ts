import type { Graph } from '../graph/ir.ts';
import { BackendError } from '../backends/backend-error.ts';
import type { ExecuteOptions } from './execute-options.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';
import { executeIsolated } from './isolation/execute-isolated.ts';
import { localPlacement, type Placement } from './placement.ts';

/**
 * The one way a network runs: the job (`options`) where `placement` puts it, by default
 * where this machine runs its backend (localPlacement). Every placement plans and verifies
 * here and returns the same report; only where the plan is run and measured differs.
 */
export async function execute(source: Graph, options: ExecuteOptions, placement: Placement = localPlacement(options.backend)): Promise<ExecuteReport> {
  const { backend } = options;
  switch (placement.on) {
    case 'process':
      if (backend.runsIn === 'page') throw new BackendError(`the ${backend.kind} backend runs whole jobs in a browser page; it prepares no network in a process of this machine.`);
      return executeIsolated(source, options);
    case 'page':
      if (backend.runsIn !== 'page') throw new BackendError(`the ${backend.kind} backend runs in a process, not in a browser page.`);
      // A page's driver and an agent's client are loaded by the placement that uses them.
      return (await import('./execute-browser.ts')).executeInPage(source, options, placement);
    case 'agent':
      return (await import('./remote-executor.ts')).executeOnAgent(source, options, placement);
  }
}
