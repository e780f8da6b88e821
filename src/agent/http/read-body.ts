import type { IncomingMessage } from 'node:http';
import { Refusal } from './refusal.ts';

/** How fast a body must come: `minBytesPerSecond` on average, counted after `graceMs`. */
export interface BodyPace {
  readonly minBytesPerSecond: number;
  readonly graceMs: number;
}

export interface BodyOptions {
  readonly maxBytes: number;
  readonly pace: BodyPace;
  /** The sentence of the 413; `declared` is the Content-Length when the client gave one. Default: the size in bytes. */
  readonly tooLarge?: (declared: number | undefined) => string;
}

/**
 * The body of a request, in one buffer of its own size: resolves with it, or with undefined
 * when the client went away first. Rejects with a Refusal: 413 when it is (or says it is)
 * larger than `maxBytes`, without reading past the limit; 408 when it comes slower than the
 * pace (a client that trickles a byte now and then holds nothing for long). After a refusal
 * nothing more is read; the caller answers and drains the connection.
 */
export function readBody(req: IncomingMessage, options: BodyOptions): Promise<Buffer | undefined> {
  const tooLarge = options.tooLarge ?? ((declared) => `the body is ${declared === undefined ? 'larger than' : `${declared} bytes, more than`} the limit of ${options.maxBytes} bytes.`);
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > options.maxBytes) return Promise.reject(new Refusal(413, tooLarge(declared)));
  return new Promise((resolve, reject) => {
    // A declared size is filled in place: no list of chunks and no copy of the whole at the end.
    const whole = declared !== undefined && Number.isSafeInteger(declared) ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const started = Date.now();
    const { minBytesPerSecond, graceMs } = options.pace;
    const tick = Math.max(25, Math.min(1000, graceMs / 2));
    const settle = (outcome: { body: Buffer | undefined } | { refusal: Refusal }): void => {
      if (settled) return;
      settled = true;
      clearInterval(pace);
      // Every listener goes: the request outlives the body (a kept-alive connection holds it), and a listener would hold the body too.
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onGone);
      req.off('error', onGone);
      if ('refusal' in outcome) {
        req.pause();
        reject(outcome.refusal);
      } else {
        resolve(outcome.body);
      }
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > (whole?.length ?? options.maxBytes)) {
        // Node frames a declared body itself; past the limit only a chunked one gets here.
        settle({ refusal: new Refusal(413, tooLarge(undefined)) });
        return;
      }
      if (whole !== undefined) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    };
    const pace = setInterval(() => {
      const owed = ((Date.now() - started - graceMs) / 1000) * minBytesPerSecond;
      if (size < owed) settle({ refusal: new Refusal(408, `the body came slower than ${minBytesPerSecond} bytes a second; send it at once.`) });
    }, tick);
    pace.unref();
    const onEnd = (): void => settle({ body: whole !== undefined ? (size === whole.length ? whole : whole.subarray(0, size)) : Buffer.concat(chunks, size) });
    const onGone = (): void => settle({ body: undefined });
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onGone);
    req.once('error', onGone);
  });
}
