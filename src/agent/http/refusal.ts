import type { OutgoingHttpHeaders } from 'node:http';

/** A request a server refuses: its HTTP status and one sentence (the `error` of its JSON answer). */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** A message as one sentence: one line, ending with a full stop (or ! or ?). */
export function sentence(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return /[.!?]$/.test(line) ? line : `${line}.`;
}
