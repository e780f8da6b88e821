/**
 * The backends a `memplan agent` can serve. Not `budgeted`: its runs stream weights from a
 * file beside a budgeted plan, and a job carries neither.
 */
export const SERVED_BACKENDS = ['cpu', 'cpu-parallel', 'webgpu', 'browser'] as const;

/** Why `kind` cannot be served by an agent, or undefined when it can. */
export function unservedBackend(kind: string): string | undefined {
  if ((SERVED_BACKENDS as readonly string[]).includes(kind)) return undefined;
  const why = kind === 'budgeted' ? ' (its runs stream weights from a file that a job does not carry)' : '';
  return `an agent cannot serve the ${kind} backend${why}; it serves ${SERVED_BACKENDS.join(', ')}.`;
}
