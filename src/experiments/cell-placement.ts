import type { Backend } from '../backends/backend.ts';
import { localPlacement, type Placement } from '../measuring/placement.ts';
import { findBackend } from '../backends/registry.ts';
import { type BackendSpec } from './config.ts';
import { ExperimentError } from './experiment-error.ts';

/** An experiment's backend that executes (not plan-only). */
export type ExecutingSpec = Exclude<BackendSpec, { kind: 'plan-only' }>;

/**
 * The backend a cell runs on and where: this machine's backend of that kind where this
 * machine runs it, or an agent's (the browser of a device) with the token read now.
 */
export function cellPlacement(spec: ExecutingSpec, file: string): { backend: Backend; placement: Placement } {
  if (spec.kind !== 'remote') {
    const backend = findBackend(spec.kind);
    return { backend, placement: localPlacement(backend) };
  }
  const { url, device, timeoutSeconds } = spec;
  const placement: Placement = { on: 'agent', url, token: agentToken(spec.token, file), ...(device === undefined ? {} : { device }), ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) };
  return { backend: findBackend(spec.backend), placement };
}

/** What results call a backend: its kind, or an agent's label. */
export function backendLabel(spec: BackendSpec): string {
  return spec.kind === 'remote' ? spec.label : spec.kind;
}

/** The spec as run.json records it: run.json may be committed or shared, so an agent's token written in the file never goes into it. */
export function recordedSpec(spec: BackendSpec): BackendSpec {
  return spec.kind === 'remote' && !spec.token.startsWith('env:') ? { ...spec, token: '(redacted)' } : spec;
}

/**
 * This machine's backend behind a spec whose device is described once per run beside the
 * machine's: those run in a process here (a browser backend's would start a browser; an
 * agent's device is the agent's to tell).
 */
export function probedHere(spec: BackendSpec): Backend | undefined {
  if (spec.kind === 'plan-only' || spec.kind === 'remote') return undefined;
  const backend = findBackend(spec.kind);
  return backend.runsIn === 'process' ? backend : undefined;
}

/** A remote backend's token: as written, or from the environment variable that `env:NAME` names. */
function agentToken(token: string, file: string): string {
  if (!token.startsWith('env:')) return token;
  const name = token.slice('env:'.length);
  const value = process.env[name];
  if (value === undefined || value === '') throw new ExperimentError(`${file}: the agent's token comes from $${name}, which is not set.`);
  return value;
}
