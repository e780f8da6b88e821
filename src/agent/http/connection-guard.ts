import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from './limits.ts';

interface Connection {
  readonly socket: Socket;
  readonly address: string;
  /** Requests in progress (headers in, answer not done). */
  busy: number;
  /** Since when it has had no request in progress (or since it opened). */
  idleSince: number;
  /** Bytes it had sent by then: more since means it has begun a request. */
  readAtIdle: number;
  /** Bytes of answers handed to it so far, and when that last grew (or its queue was empty). */
  written: number;
  writtenAt: number;
}

/** How long a refused or timed-out client may go on sending before its connection is cut. */
const CUT_AFTER_MS = 1000;

/**
 * Keeps a server answering its proper clients whatever idle or slow sockets do (`memplan
 * agent`, the device hub). It watches every connection:
 *
 * - a connection with no request in progress must send a request's headers within
 *   `headersTimeoutMs` of opening or of its last answer: one that began a request gets 408
 *   and is closed, one that sent nothing is closed;
 * - at most `maxConnectionsPerAddress` connections per address (IPv6: per /64) and
 *   `maxConnections` in all: a new connection past either makes room by closing the oldest
 *   connection of that address (or of all) that has no request in progress, so that sockets
 *   which never finish their headers cannot keep a client out, however many pile up; only
 *   when every one is busy with a request is the new one refused (503);
 * - an answer the client stops reading is cut after `sendStallMs` without progress.
 *
 * Bodies are paced by read-body.ts, which knows when a body is being read.
 */
export class ConnectionGuard {
  private readonly all = new Set<Connection>();
  private readonly byAddress = new Map<string, Set<Connection>>();
  private readonly bySocket = new WeakMap<Socket, Connection>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    server: Server,
    private readonly limits: HttpLimits,
    /** The JSON a refusal carries, given its sentence. */
    private readonly refusalBody: (message: string) => unknown,
    private readonly log: (line: string) => void = () => {},
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    this.sweeper = setInterval(() => this.sweep(), sweepMs(limits));
    this.sweeper.unref();
  }

  /** Open connections, in all and from `address`. */
  count(address?: string): number {
    return address === undefined ? this.all.size : (this.byAddress.get(addressKey(address))?.size ?? 0);
  }

  /** A request's headers are in: its connection is busy until its answer is done or abandoned. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.bySocket.get(req.socket);
    if (connection === undefined) return;
    connection.busy++;
    res.once('close', () => {
      connection.busy--;
      if (connection.busy === 0) {
        connection.idleSince = Date.now();
        connection.readAtIdle = connection.socket.bytesRead;
      }
    });
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private admit(socket: Socket): void {
    const address = addressKey(socket.remoteAddress ?? 'unknown');
    const mine = this.byAddress.get(address) ?? new Set<Connection>();
    if (!this.makeRoom(mine, this.limits.maxConnectionsPerAddress) || !this.makeRoom(this.all, this.limits.maxConnections)) {
      this.log(`refused a connection from ${address}: every one of its connections is busy with a request`);
      refuse(
        socket,
        503,
        this.refusalBody(
          mine.size >= this.limits.maxConnectionsPerAddress
            ? `this address has ${mine.size} connections busy with requests already; try again when one is done.`
            : 'the server is busy with requests on every connection it takes; try again later.',
        ),
      );
      return;
    }
    const now = Date.now();
    const connection: Connection = { socket, address, busy: 0, idleSince: now, readAtIdle: 0, written: 0, writtenAt: now };
    this.all.add(connection);
    mine.add(connection);
    this.byAddress.set(address, mine);
    this.bySocket.set(socket, connection);
    socket.once('close', () => this.forget(connection));
  }

  /** Whether `pool` has room for one more connection, after closing its oldest idle one if it is full. */
  private makeRoom(pool: Set<Connection>, max: number): boolean {
    if (pool.size < max) return true;
    let oldest: Connection | undefined;
    for (const connection of pool) {
      if (connection.busy === 0 && (oldest === undefined || connection.idleSince < oldest.idleSince)) oldest = connection;
    }
    if (oldest === undefined) return false;
    this.forget(oldest);
    oldest.socket.destroy();
    return true;
  }

  private forget(connection: Connection): void {
    this.all.delete(connection);
    const mine = this.byAddress.get(connection.address);
    mine?.delete(connection);
    if (mine?.size === 0) this.byAddress.delete(connection.address);
  }

  private sweep(): void {
    const now = Date.now();
    for (const connection of [...this.all]) {
      const { socket } = connection;
      if (connection.busy === 0) {
        if (now - connection.idleSince <= this.limits.headersTimeoutMs) continue;
        this.forget(connection);
        // Began a request and did not finish its headers: say why. Sent nothing (or idle between requests): just close.
        if (socket.bytesRead > connection.readAtIdle) refuse(socket, 408, this.refusalBody(`the request's headers did not arrive within ${seconds(this.limits.headersTimeoutMs)} s.`));
        else socket.destroy();
        continue;
      }
      if (socket.writableLength === 0 || socket.bytesWritten !== connection.written) {
        connection.written = socket.bytesWritten;
        connection.writtenAt = now;
      } else if (now - connection.writtenAt > this.limits.sendStallMs) {
        this.forget(connection);
        socket.destroy();
      }
    }
  }
}

/** Connections from one IPv6 /64 count as from one address: a host there has all of it to choose from. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1];
  if (!address.includes(':')) return address;
  const [head, tail = ''] = address.toLowerCase().split('%')[0].split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** An answer written straight to a socket that has no request in progress (JSON, one sentence), then the connection closed. */
function refuse(socket: Socket, status: 408 | 503, body: unknown): void {
  const text = JSON.stringify(body);
  const reason = status === 408 ? 'Request Timeout' : 'Service Unavailable';
  try {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-store\r\nConnection: close\r\n${status === 503 ? 'Retry-After: 5\r\n' : ''}\r\n${text}`,
    );
  } catch {
    // already gone
  }
  setTimeout(() => socket.destroy(), CUT_AFTER_MS).unref();
}

function sweepMs(limits: HttpLimits): number {
  return Math.max(20, Math.min(1000, Math.min(limits.headersTimeoutMs, limits.sendStallMs) / 4));
}

function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(1)));
}
