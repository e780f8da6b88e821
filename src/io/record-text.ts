import { isUtf8 } from 'node:buffer';
import { InputError } from './input-error.ts';

/**
 * The text of a record file (.csv, .json), which must be UTF-8. A lenient decoder would
 * turn every invalid byte into U+FFFD without a word: two ids that differ only there
 * would become one, and a file saved as UTF-16 would fail later with a puzzling message
 * about its header. A UTF-8 byte-order mark (Excel's "CSV UTF-8" writes one) is dropped.
 */
export function decodeRecordText(bytes: Uint8Array, file: string): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputError(file, undefined, 'is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8.');
  }
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
    throw new InputError(file, line, `the byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')} at offset ${at} is not UTF-8 text; save the file as UTF-8.`);
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start).toString('utf8');
}

/**
 * The offset of the first byte that does not belong to a well-formed UTF-8 sequence
 * (Unicode, table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or the
 * length when every byte does. Only called once isUtf8 has said that one does not.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The number of continuation bytes and the range of the first of them.
    let count: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) count = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else {
      return i;
    }
    for (let k = 1; k <= count; k++) {
      const byte = bytes[i + k];
      if (byte === undefined) return i;
      const inRange = k === 1 ? byte >= low && byte <= high : byte >= 0x80 && byte <= 0xbf;
      if (!inRange) return i;
    }
    i += count + 1;
  }
  return bytes.length;
}
