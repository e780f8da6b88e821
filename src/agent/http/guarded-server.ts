import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ConnectionGuard } from './connection-guard.ts';
import type { HttpLimits } from './limits.ts';

export interface GuardedServer {
  readonly server: Server;
  readonly guard: ConnectionGuard;
}

/**
 * An HTTP server for strangers to reach, with the connection guard on (connection-guard.ts):
 * `handle` gets each request once its headers are in (`expectsContinue` for a client that
 * waits for 100 Continue before it sends its body). Node's own header timeout stays on as a
 * backstop at twice the guard's (the guard's comes first and answers in JSON); Node's whole-
 * request timeout is off, as bodies are paced where they are read and a job's answer may take
 * as long as the job.
 */
export function guardedServer(
  limits: HttpLimits,
  handle: (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => void,
  refusalBody: (message: string) => unknown,
  log?: (line: string) => void,
): GuardedServer {
  const server = createServer({
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 2)),
    headersTimeout: limits.headersTimeoutMs * 2,
    requestTimeout: 0,
    keepAliveTimeout: limits.headersTimeoutMs,
  });
  const guard = new ConnectionGuard(server, limits, refusalBody, log);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    guard.track(req, res);
    handle(req, res, false);
  });
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    guard.track(req, res);
    handle(req, res, true);
  });
  server.once('close', () => guard.close());
  return { server, guard };
}
