/**
 * Base64 of bytes, in Node and in a browser page alike (the wire format is read by both:
 * the agent and the device page). Node's Buffer is used where it exists, being much
 * faster on jobs of tens of MiB; a page uses the platform's own.
 */

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
/** Uint8Array.fromBase64 / toBase64 (recent browsers and Node versions). */
const Native = Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> };

/** The whole machine is big-endian (the wire carries little-endian bytes). */
export const BIG_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 0;

export function bytesToBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const withNative = bytes as Uint8Array & { toBase64?: () => string };
  if (typeof withNative.toBase64 === 'function') return withNative.toBase64();
  // btoa takes a "binary string"; built a slice at a time, as spreading a whole array overflows the stack.
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/** The bytes of base64 text already checked to be base64, in a fresh buffer of their own. */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  if (NodeBuffer !== undefined) {
    const decoded = NodeBuffer.from(text, 'base64');
    // A fresh, aligned buffer that holds exactly these bytes (Buffer may share a pool).
    const bytes = new Uint8Array(decoded.length);
    bytes.set(decoded);
    return bytes;
  }
  if (typeof Native.fromBase64 === 'function') return Native.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return bytes;
}
