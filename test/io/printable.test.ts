import { describe, expect, it } from 'vitest';
import { printable, printableValues } from '../../src/io/printable.ts';

describe('printable', () => {
  it('shows control characters escaped instead of letting them act on a terminal', () => {
    expect(printable('evil\u001b[31mred\u0007')).toBe('evil\\x1b[31mred\\x07');
    expect(printable('a\nb\rc\td\u0000e\u007ff\u009bg')).toBe('a\\x0ab\\x0dc\\x09d\\x00e\\x7ff\\x9bg');
    // Bidirectional overrides and line separators reorder or break what a terminal shows.
    expect(printable('abc\u202etxt.exe\u2028')).toBe('abc\\u202etxt.exe\\u2028');
  });

  it('keeps printable text, other scripts included, and cuts long text', () => {
    expect(printable('Pixel 8 — Mali-G715 (ARM) 日本')).toBe('Pixel 8 — Mali-G715 (ARM) 日本');
    expect(printable('x'.repeat(100), 10)).toBe('xxxxxxx...');
    expect(printable('\u001b'.repeat(40), 20)).toHaveLength(20);
  });

  it('makes every string of a described device printable, keys included, and drops deep nesting', () => {
    const info = { backend: 'browser', adapter: 'gpu\u001b]0;owned\u0007', limits: { max: 4, note: ['a\u0008'] }, 'k\u001b': true, deep: { a: { b: { c: { d: 'gone' } } } } };
    expect(printableValues(info)).toEqual({ backend: 'browser', adapter: 'gpu\\x1b]0;owned\\x07', limits: { max: 4, note: ['a\\x08'] }, 'k\\x1b': true, deep: { a: { b: { c: undefined } } } });
    // A key named __proto__ stays a key.
    expect(Object.getPrototypeOf(printableValues(JSON.parse('{"__proto__": {"x": 1}}')))).toBe(Object.prototype);
  });
});
