import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret: what a server keeps and compares instead of the secret itself. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether `given` is the secret whose digest is `expected`, in time that says nothing about
 * the secret: digests have one length whatever was given, and are compared in constant time.
 */
export function sameSecret(given: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(given), expected);
}

/** The token of an `Authorization: Bearer <token>` header, if the header is one. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}
