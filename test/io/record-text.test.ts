import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/io/input-error.ts';
import { printable } from '../../src/io/printable.ts';
import { decodeRecordText } from '../../src/io/record-text.ts';

const FILE = 'traces/model.csv';
const bytes = (...parts: (string | number[])[]): Uint8Array => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

function refusal(input: Uint8Array): InputError {
  try {
    decodeRecordText(input, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError, but the bytes decoded');
}

describe('decodeRecordText', () => {
  it('reads UTF-8 as it is, multi-byte characters and NULs included, and drops a UTF-8 byte-order mark', () => {
    const text = 'id,lower,upper,size\ncafé-€-😀,0,1,2\n\0\n';
    expect(decodeRecordText(bytes(text), FILE)).toBe(text);
    expect(decodeRecordText(bytes([0xef, 0xbb, 0xbf], text), FILE)).toBe(text);
    expect(decodeRecordText(new Uint8Array(0), FILE)).toBe('');
  });

  it('refuses UTF-16 by its byte-order mark, either order', () => {
    for (const bom of [
      [0xff, 0xfe],
      [0xfe, 0xff],
    ]) {
      expect(refusal(bytes(bom, 'i\0d\0')).message).toBe(`${FILE}: is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8.`);
    }
  });

  it.each([
    ['a lone continuation byte', [0x80], 0x80],
    ['an overlong "/" (C0 AF)', [0xc0, 0xaf], 0xc0],
    ['an overlong three-byte form (E0 80 80)', [0xe0, 0x80, 0x80], 0xe0],
    ['a surrogate (ED A0 80)', [0xed, 0xa0, 0x80], 0xed],
    ['a code point past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0xf4],
    ['a Latin-1 "é" (E9) before ASCII', [0xe9, 0x2c], 0xe9],
    ['a sequence cut by the end of the file (E2 82)', [0xe2, 0x82], 0xe2],
    ['0xFF', [0xff], 0xff],
  ])('refuses %s, naming its line and offset', (_, bad, first) => {
    const error = refusal(bytes('id,lower,upper,size\nok-€,0,1,2\nx', bad, ',0,1,2\n'));
    // The header is 20 bytes, "ok-€,0,1,2\n" 13 (€ is three): after "x", offset 34.
    expect(error.line).toBe(3);
    expect(error.message).toBe(`${FILE}:3: the byte 0x${first.toString(16)} at offset 34 is not UTF-8 text; save the file as UTF-8.`);
  });
});

describe('InputError', () => {
  it('writes control characters and line separators from a file as escapes, so the sentence stays on one line', () => {
    expect(printable('op type R\nlu\0 \x1b[31m\u2028ok é')).toBe('op type R\\x0alu\\x00 \\x1b[31m\\u2028ok é');
    expect(new InputError('m.onnx', undefined, 'tensor "a\r\nb" is odd.').message).toBe('m.onnx: tensor "a\\x0d\\x0ab" is odd.');
  });
});
