import { budgetedNetwork } from '../../graph/budget-records.ts';
import { flexnn } from '../../planners/budgeted/flexnn.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import type { Backend } from '../backend.ts';
import { seededInputs } from '../run-data.ts';
import { warmUpGraph } from '../warm-up-graph.ts';

/**
 * Runs that network twice through `backend` inside a small budget, its weights read from
 * /dev/zero: the measured process does this before its baseline, so that the executor's
 * compiled code and the heap it settles in count as the runtime's (a native runtime's code
 * is in its binary), and the figures after the baseline are the network's: its buffer,
 * and what describing it takes.
 */
export async function warmUp(backend: Backend): Promise<void> {
  const budget = 256 * 1024;
  const network = budgetedNetwork(warmUpGraph(), { budget });
  const plan = planAndVerify(flexnn, network.problem, { alignment: 64, budget });
  const prepared = await backend.prepare({ graph: network.graph, problem: network.problem, plan, streaming: { weightsFile: '/dev/zero', loading: 'overlapped', bufferBytes: budget, trace: true } });
  const inputs = seededInputs(network.graph, 1);
  await prepared.infer(inputs);
  await prepared.infer(inputs);
  prepared.streamingStats?.();
  prepared.dispose();
}
