import type { Backend } from '../backends/backend.ts';

/**
 * Where a job runs; what runs (the backend, the plan, the repetitions) is the job itself
 * (ExecuteOptions), whatever the placement:
 * - `process`: an isolated process of its own on this machine, measured from outside the network;
 * - `page`: a headless browser started on this machine for the job alone, which runs it whole in its page;
 * - `agent`: a `memplan agent` elsewhere, on its backend of the job's kind or on a browser that joined it as a device.
 */
export type Placement = ProcessPlacement | PagePlacement | AgentPlacement;

export interface ProcessPlacement {
  readonly on: 'process';
}

export interface PagePlacement {
  readonly on: 'page';
  /** The Chromium-based browser to start, a path or a name on PATH; default the first found. */
  readonly browser?: string;
}

export interface AgentPlacement {
  readonly on: 'agent';
  /** The agent, `http://host:port` (an https front works too). */
  readonly url: string;
  readonly token: string;
  /** A browser that joined the agent's device page (`memplan list devices`): the job runs there, on the browser backend. */
  readonly device?: string;
  /** Seconds to wait for the job's answer, waiting in the agent's queue included; default the agent's run limit + 60. */
  readonly timeoutSeconds?: number;
}

/** Where this machine runs a job of `backend`: a browser page for a backend that runs in one (Backend.runsIn), else an isolated process. */
export function localPlacement(backend: Pick<Backend, 'runsIn'>, browser?: string): ProcessPlacement | PagePlacement {
  return backend.runsIn === 'page' ? { on: 'page', ...(browser === undefined ? {} : { browser }) } : { on: 'process' };
}
