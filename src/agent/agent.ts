import type { AddressInfo } from 'node:net';
import { BackendError } from '../backends/backend-error.ts';
import { DeviceHub } from './device-hub.ts';
import { pageBundle } from '../backends/browser/page-bundle.ts';
import { BodyBudget } from './http/body-budget.ts';
import { guardedServer } from './http/guarded-server.ts';
import { digest } from './http/secrets.ts';
import { findBackend, unservedBackend } from '../backends/registry.ts';
import { agentSettings, type AgentOptions } from './agent-settings.ts';
import { handleRequest } from './agent-routes.ts';
import type { DeviceJobOptions } from './device-jobs.ts';
import { agentDevice } from './device-info.ts';
import { LocalJobs, type Counters } from './local-jobs.ts';
import { PROTOCOL_VERSION, type AgentCounters, type AgentDevice, type InfoResponse } from './wire.ts';

export { MIN_TOKEN_LENGTH, type AgentOptions } from './agent-settings.ts';

export interface RunningAgent {
  /** `http://host:port`, as a client reaches it. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly device: AgentDevice;
  /** With `devices`: the browsers that joined, and the code they join with. */
  readonly hub?: DeviceHub;
  counters(): AgentCounters;
  /** Stops listening, ends every job process and connection. */
  close(): Promise<void>;
}

/**
 * `memplan agent`'s server: runs jobs sent by the harness (remote-executor.ts) on this
 * machine's backends and answers with execute's report (routes: agent-routes.ts).
 *
 * With `devices`, also the device page (device-hub.ts): browsers join with the
 * pairing code and run the jobs that name them (`run.device`, device-jobs.ts).
 *
 * Every other request needs the token. The server keeps answering proper clients whatever
 * idle or slow sockets do (http/connection-guard.ts: header timeout, connections per address);
 * bodies are paced and held one per client, in a bounded total (http/read-body.ts,
 * http/body-budget.ts). A job is checked completely before anything runs (structure, shapes,
 * the plan through the verifier), in the job process that then runs it (local-jobs.ts): one
 * job at a time, killed at the time cap or when its client goes away. The agent writes no files.
 */
export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const settings = agentSettings(options);
  const backends = settings.kinds.map((kind) => {
    const backend = findBackend(kind);
    const unserved = unservedBackend(kind);
    if (unserved !== undefined) throw new BackendError(unserved);
    return backend;
  });
  const device = await agentDevice(backends);
  const log = options.log ?? (() => {});
  const pace = { minBytesPerSecond: settings.http.minBodyBytesPerSecond, graceMs: settings.http.bodyGraceMs };
  const hub = options.devices ? new DeviceHub({ ...(options.devices === true ? {} : options.devices), pace, log: (line) => log(`devices: ${line}`) }) : undefined;
  const counters: Counters = { started: 0, completed: 0, timedOut: 0, abandoned: 0, failed: 0 };
  let closing = false;
  const isClosing = (): boolean => closing;
  const { maxRunSeconds, maxTensorBytes } = settings;
  const served = device.backends.map((b) => ({ kind: b.kind, requiredAlignment: b.requiredAlignment, plansScratch: findBackend(b.kind).plansScratch === true }));
  const local = new LocalJobs({ served, maxTensorBytes, maxQueuedJobs: settings.maxQueuedJobs, maxRunSeconds, counters, log, closing: isClosing });
  const deviceJobs: DeviceJobOptions | undefined = hub === undefined ? undefined : { hub, maxTensorBytes, maxRunSeconds, counters, log, closing: isClosing };
  const inFlight = new Set<AbortController>();
  const info = (): InfoResponse => ({
    protocol: PROTOCOL_VERSION,
    agent: 'memplan-agent',
    device,
    limits: { maxJobBytes: settings.maxJobBytes, maxRunSeconds },
    jobs: { ...counters },
    ...(hub ? { devices: hub.list() } : {}),
  });
  const routes = {
    tokenDigest: digest(settings.token),
    maxJobBytes: settings.maxJobBytes,
    http: settings.http,
    device,
    info,
    local,
    ...(hub === undefined ? {} : { hub, deviceJobs }),
    bodies: new BodyBudget(settings.maxBodyMemoryBytes),
    log,
    closing: isClosing,
    inFlight,
  };
  const { server, guard } = guardedServer(
    settings.http,
    (req, res, expectsContinue) => void handleRequest(routes, req, res, expectsContinue),
    (message) => ({ protocol: PROTOCOL_VERSION, error: message }),
    log,
  );

  try {
    // The device page is bundled before the agent says it serves: a bundle that cannot be made fails now.
    if (hub !== undefined) await pageBundle();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    hub?.close();
    guard.close();
    throw error;
  }
  // The first job's process is loaded and ready before the agent says it serves: a project
  // that cannot run jobs here fails now, with its error, not at the first job.
  try {
    await local.warm();
  } catch (error) {
    hub?.close();
    await local.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    device,
    ...(hub ? { hub } : {}),
    counters: () => ({ ...counters }),
    async close() {
      if (closing) return;
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const controller of inFlight) controller.abort();
      hub?.close();
      await local.close();
      server.closeAllConnections();
      await stopped;
    },
  };
}
