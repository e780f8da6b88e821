import type { Backend } from './backend.ts';
import { BackendError } from './backend-error.ts';
import { browserBackend } from './browser/browser-backend.ts';
import { budgetedBackend } from './budgeted/budgeted-backend.ts';
import { cpuBackend } from './cpu/cpu-backend.ts';
import { cpuParallelBackend } from './cpu-parallel/cpu-parallel-backend.ts';
import { webgpuBackend } from './webgpu/webgpu-backend.ts';

/**
 * Backends that execute networks: the one list of their kinds. Every other list (what an
 * agent serves, what an experiment file or `memplan exec` accepts, what `--trace` times) is
 * derived from it and the capabilities each backend declares; `plan-only` (no execution) is
 * the experiments' default.
 */
export const BACKENDS = [cpuBackend, cpuParallelBackend, webgpuBackend, budgetedBackend, browserBackend] as const;

/** A kind of the list above. */
export type BackendKind = (typeof BACKENDS)[number]['kind'];

export function findBackend(kind: string): Backend {
  const found = (BACKENDS as readonly Backend[]).find((b) => b.kind === kind);
  if (!found) throw new BackendError(`unknown backend "${kind}"; available: ${BACKENDS.map((b) => b.kind).join(', ')}.`);
  return found;
}

/** The capabilities a backend declares (backend.ts). */
export type Capability = 'traces' | 'streamsWeights' | 'parallelSteps' | 'measuresRss';

/** Whether the backend of this kind has `capability` (false for a kind the list does not hold). */
export function hasCapability(kind: string, capability: Capability): boolean {
  return (BACKENDS as readonly Backend[]).some((b) => b.kind === kind && b[capability]);
}

/** The kinds of the backends that have `capability` (or lack it, `has` false), in the list's order. */
export function kindsWhere(capability: Capability, has = true): BackendKind[] {
  return BACKENDS.filter((b) => b[capability] === has).map((b) => b.kind);
}

/**
 * The backends a `memplan agent` can serve and an experiment cell can run: all but those that
 * stream weights from a file beside a budgeted plan, which neither a job nor a cell carries.
 */
export function servedKinds(): BackendKind[] {
  return kindsWhere('streamsWeights', false);
}

/** Why `kind` cannot be served by an agent, or undefined when it can. */
export function unservedBackend(kind: string): string | undefined {
  const served: readonly string[] = servedKinds();
  if (served.includes(kind)) return undefined;
  const why = hasCapability(kind, 'streamsWeights') ? ' (its runs stream weights from a file that a job does not carry)' : '';
  return `an agent cannot serve the ${kind} backend${why}; it serves ${served.join(', ')}.`;
}
