import type { Backend } from './backend.ts';
import { BackendError } from './backend-error.ts';
import { browserBackend } from './browser/browser-backend.ts';
import { budgetedBackend } from './budgeted/budgeted-backend.ts';
import { cpuBackend } from './cpu/cpu-backend.ts';
import { cpuParallelBackend } from './cpu-parallel/cpu-parallel-backend.ts';
import { webgpuBackend } from './webgpu/webgpu-backend.ts';

/** Backends that execute networks; `plan-only` (no execution) is the experiments' default. */
export const BACKENDS: readonly Backend[] = [cpuBackend, cpuParallelBackend, webgpuBackend, budgetedBackend, browserBackend];

export function findBackend(kind: string): Backend {
  const found = BACKENDS.find((b) => b.kind === kind);
  if (!found) throw new BackendError(`unknown backend "${kind}"; available: ${BACKENDS.map((b) => b.kind).join(', ')}.`);
  return found;
}
