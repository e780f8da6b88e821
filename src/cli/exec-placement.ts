import { localPlacement, type Placement } from '../measuring/placement.ts';
import { findBackend, unservedBackend } from '../backends/registry.ts';
import { TOKEN_ENV } from './agent-token.ts';
import { UsageError } from './errors.ts';

/** The arguments of `memplan exec` that say where a job runs. */
export interface PlacementArgs {
  readonly url?: string;
  readonly token?: string;
  readonly remoteBackend: string;
  readonly browser?: string;
  readonly device?: string;
  readonly peer: boolean;
}

/**
 * The backend that runs the job and where: on this machine as the backend runs there, or with
 * --backend remote on an agent (its --remote-backend, or the browser of --device), after the
 * arguments only an agent takes are checked.
 */
export function execPlacement(args: PlacementArgs, backend: string): { kind: string; placement: Placement } {
  if (backend !== 'remote') return { kind: backend, placement: localPlacement(findBackend(backend), args.browser) };
  // As the agent reads it: a token in the environment is not in `ps` or the shell history.
  const token = args.token ?? process.env[TOKEN_ENV];
  if (args.url === undefined || token === undefined || token === '') throw new UsageError(`--backend remote needs --url http://host:port and --token (or ${TOKEN_ENV}) of a memplan agent.`);
  if (args.peer) throw new UsageError('--peer times onnxruntime on this machine; it does not combine with --backend remote.');
  const unserved = args.device === undefined ? unservedBackend(args.remoteBackend) : undefined;
  if (unserved !== undefined) throw new UsageError(`--remote-backend ${args.remoteBackend}: ${unserved}`);
  // A device is a browser: it runs the browser backend, whatever --remote-backend says.
  const kind = args.device === undefined ? args.remoteBackend : 'browser';
  return { kind, placement: { on: 'agent', url: args.url, token, ...(args.device === undefined ? {} : { device: args.device }) } };
}
