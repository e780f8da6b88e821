import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** How long a client may go on sending a body that will not be read, once its answer is out. */
const CUT_AFTER_MS = 1000;

/** A JSON answer (or an empty one without `body`), never cached; nothing when an answer went out already. */
export function reply(res: ServerResponse, status: number, body?: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  try {
    if (body === undefined) {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...headers });
    res.end(text);
  } catch {
    // The connection closed under us: nobody to answer.
  }
}

/**
 * After an answer given before the body was read (or without reading it), read no more:
 * close the connection once the answer is out, and cut it if the client keeps sending.
 */
export function drain(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  const cut = (): void => {
    req.socket.end();
    setTimeout(() => req.socket.destroy(), CUT_AFTER_MS).unref();
  };
  if (res.writableFinished) cut();
  else res.once('finish', cut);
}
