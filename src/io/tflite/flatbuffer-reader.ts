import { ByteBuffer } from 'flatbuffers';

const UTF8 = new TextDecoder('utf-8');
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeControl = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
};

/** Raises the reader's error for a corrupt buffer; `problem` is the tail of one sentence. */
export type Corrupt = (problem: string) => never;

/**
 * A bounds-checked view of one FlatBuffer. The `flatbuffers` runtime reads bytes without
 * any check (an offset past the end yields `undefined` bits, not an error), so every
 * offset, vtable and vector length is checked here before the runtime reads it.
 *
 * Every table opened and every vector element, string byte or copied byte counts
 * against a work budget proportional to the buffer's size: offsets that make many
 * tables share one large vector cannot turn a small file into unbounded work.
 */
export class FlatBuffer {
  private readonly bb: ByteBuffer;
  readonly length: number;
  private workLeft: number;

  constructor(
    readonly bytes: Uint8Array,
    readonly corrupt: Corrupt,
  ) {
    this.bb = new ByteBuffer(bytes);
    this.length = bytes.length;
    this.workLeft = 4 * bytes.length + (1 << 20);
  }

  /** Fails unless `[offset, offset + size)` lies inside the buffer. */
  need(offset: number, size: number, what: string): void {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0 || offset + size > this.length) {
      this.corrupt(`${what} lies outside the file (bytes ${offset} to ${offset + size} of ${this.length})`);
    }
  }

  /** Charges `units` of work; fails once the budget is spent. */
  spend(units: number, what: string): void {
    this.workLeft -= units;
    if (this.workLeft < 0) this.corrupt(`its offsets overlap far more than any real model's do (at ${what})`);
  }

  int8(offset: number, what: string): number {
    this.need(offset, 1, what);
    return this.bb.readInt8(offset);
  }

  uint8(offset: number, what: string): number {
    this.need(offset, 1, what);
    return this.bb.readUint8(offset);
  }

  int16(offset: number, what: string): number {
    this.need(offset, 2, what);
    return this.bb.readInt16(offset);
  }

  uint16(offset: number, what: string): number {
    this.need(offset, 2, what);
    return this.bb.readUint16(offset);
  }

  int32(offset: number, what: string): number {
    this.need(offset, 4, what);
    return this.bb.readInt32(offset);
  }

  uint32(offset: number, what: string): number {
    this.need(offset, 4, what);
    return this.bb.readUint32(offset);
  }

  /** A 64-bit unsigned value as a JS number; fails above 2^53 - 1. */
  uint64(offset: number, what: string): number {
    this.need(offset, 8, what);
    const value = this.bb.readUint64(offset);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) this.corrupt(`${what} is ${value}, over 2^53 - 1`);
    return Number(value);
  }

  float32(offset: number, what: string): number {
    this.need(offset, 4, what);
    return this.bb.readFloat32(offset);
  }

  /** `length` int32 values from `offset`, after one check of the whole range. */
  int32sAt(offset: number, length: number): number[] {
    this.need(offset, 4 * length, 'a vector');
    const values = new Array<number>(length);
    for (let k = 0; k < length; k++) values[k] = this.bb.readInt32(offset + 4 * k);
    return values;
  }

  /** The 4-character file identifier after the root offset, or undefined when too short. */
  identifier(): string | undefined {
    if (this.length < 8) return undefined;
    let text = '';
    for (let k = 4; k < 8; k++) text += String.fromCharCode(this.bb.readUint8(k));
    return text;
  }

  /** The root table (the uoffset at byte 0). */
  root(what: string): Table {
    return this.tableAt(this.uoffsetTarget(0, what), what);
  }

  /** Where the uoffset stored at `offset` points. */
  uoffsetTarget(offset: number, what: string): number {
    const target = offset + this.uint32(offset, `the offset of ${what}`);
    this.need(target, 1, what);
    return target;
  }

  /** Opens the table whose start is `position`, checking its vtable. */
  tableAt(position: number, what: string): Table {
    this.spend(1, what);
    const vtable = position - this.int32(position, `the vtable offset of ${what}`);
    this.need(vtable, 4, `the vtable of ${what}`);
    const vtableSize = this.uint16(vtable, `the vtable of ${what}`);
    const inlineSize = this.uint16(vtable + 2, `the vtable of ${what}`);
    if (vtableSize < 4) this.corrupt(`the vtable of ${what} is ${vtableSize} bytes long, shorter than its 4-byte header`);
    if (inlineSize < 4) this.corrupt(`${what} is ${inlineSize} bytes long, shorter than its 4-byte vtable offset`);
    this.need(vtable, vtableSize, `the vtable of ${what}`);
    this.need(position, inlineSize, what);
    return new Table(this, position, vtable, vtableSize, inlineSize, what);
  }

  /** The length and first element of the vector at `start`, checked against the buffer. */
  vectorAt(start: number, elementSize: number, what: string): { length: number; data: number } {
    const length = this.uint32(start, `the length of ${what}`);
    this.need(start + 4, length * elementSize, what);
    return { length, data: start + 4 };
  }

  /**
   * A UTF-8 string at `start` (its length prefix first). Invalid UTF-8 becomes U+FFFD, and
   * control characters and line separators become `\xNN` / `\uNNNN` escapes, so that a name
   * always fits in a one-line message.
   */
  stringAt(start: number, what: string): string {
    const { length, data } = this.vectorAt(start, 1, what);
    this.spend(length, what);
    return UTF8.decode(this.bytes.subarray(data, data + length)).replace(CONTROL, escapeControl);
  }
}

/** A vector of tables, opened one element at a time. */
export interface TableVector {
  readonly length: number;
  at(index: number): Table;
}

/** One table of a FlatBuffer; fields are read by id (0-based, in schema order). */
export class Table {
  constructor(
    private readonly buffer: FlatBuffer,
    readonly position: number,
    private readonly vtable: number,
    private readonly vtableSize: number,
    private readonly inlineSize: number,
    readonly what: string,
  ) {}

  /** The position of field `id` holding `size` bytes, or undefined when the field is absent. */
  private field(id: number, size: number, name: string): number | undefined {
    const entry = 4 + 2 * id;
    if (entry + 2 > this.vtableSize) return undefined;
    const offset = this.buffer.uint16(this.vtable + entry, `the vtable of ${this.what}`);
    if (offset === 0) return undefined;
    if (offset < 4 || offset + size > this.inlineSize) {
      this.buffer.corrupt(`field ${name} of ${this.what} lies outside the table (offset ${offset} of ${this.inlineSize} bytes)`);
    }
    return this.position + offset;
  }

  has(id: number): boolean {
    return this.field(id, 1, `#${id}`) !== undefined;
  }

  int8(id: number, name: string, fallback: number): number {
    const at = this.field(id, 1, name);
    return at === undefined ? fallback : this.buffer.int8(at, `${name} of ${this.what}`);
  }

  uint8(id: number, name: string, fallback: number): number {
    const at = this.field(id, 1, name);
    return at === undefined ? fallback : this.buffer.uint8(at, `${name} of ${this.what}`);
  }

  bool(id: number, name: string, fallback: boolean): boolean {
    const at = this.field(id, 1, name);
    return at === undefined ? fallback : this.buffer.uint8(at, `${name} of ${this.what}`) !== 0;
  }

  int32(id: number, name: string, fallback: number): number {
    const at = this.field(id, 4, name);
    return at === undefined ? fallback : this.buffer.int32(at, `${name} of ${this.what}`);
  }

  uint32(id: number, name: string, fallback: number): number {
    const at = this.field(id, 4, name);
    return at === undefined ? fallback : this.buffer.uint32(at, `${name} of ${this.what}`);
  }

  uint64(id: number, name: string, fallback: number): number {
    const at = this.field(id, 8, name);
    return at === undefined ? fallback : this.buffer.uint64(at, `${name} of ${this.what}`);
  }

  float32(id: number, name: string, fallback: number): number {
    const at = this.field(id, 4, name);
    return at === undefined ? fallback : this.buffer.float32(at, `${name} of ${this.what}`);
  }

  /** Where the offset field `id` points, or undefined when absent. */
  private target(id: number, name: string): number | undefined {
    const at = this.field(id, 4, name);
    return at === undefined ? undefined : this.buffer.uoffsetTarget(at, `${name} of ${this.what}`);
  }

  table(id: number, name: string, what = `${name} of ${this.what}`): Table | undefined {
    const start = this.target(id, name);
    return start === undefined ? undefined : this.buffer.tableAt(start, what);
  }

  string(id: number, name: string): string | undefined {
    const start = this.target(id, name);
    return start === undefined ? undefined : this.buffer.stringAt(start, `${name} of ${this.what}`);
  }

  /** A vector of tables; `label(k)` names element k in error messages. */
  tables(id: number, name: string, label: (index: number) => string): TableVector {
    const start = this.target(id, name);
    const buffer = this.buffer;
    if (start === undefined) return { length: 0, at: (index) => buffer.corrupt(`${label(index)} does not exist`) };
    const what = `${name} of ${this.what}`;
    const { length, data } = this.buffer.vectorAt(start, 4, what);
    this.buffer.spend(length, what);
    return {
      length,
      at(index: number): Table {
        if (!Number.isInteger(index) || index < 0 || index >= length) buffer.corrupt(`${label(index)} does not exist`);
        const element = data + 4 * index;
        return buffer.tableAt(buffer.uoffsetTarget(element, label(index)), label(index));
      },
    };
  }

  /** A vector of int32 values (empty when absent). */
  int32s(id: number, name: string): number[] {
    const start = this.target(id, name);
    if (start === undefined) return [];
    const what = `${name} of ${this.what}`;
    const { length, data } = this.buffer.vectorAt(start, 4, what);
    this.buffer.spend(length, what);
    return this.buffer.int32sAt(data, length);
  }

  /** A vector of bytes as a range of the buffer (no copy), or undefined when absent. */
  byteRange(id: number, name: string): { offset: number; length: number } | undefined {
    const start = this.target(id, name);
    if (start === undefined) return undefined;
    const { length, data } = this.buffer.vectorAt(start, 1, `${name} of ${this.what}`);
    return { offset: data, length };
  }
}
