import type { KernelCall } from '../cpu/kernel.ts';

type TypedArray = Float32Array | Float64Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;
type TypedArrayConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => TypedArray;

/**
 * The weights of kernel calls moved into shared memory, call by call: the raw constants a
 * call still reads (biases, operands of Add or Mul) and the typed arrays of its prepared
 * form (repacked weights) are copied into one SharedArrayBuffer per call, which every
 * worker thread reads: the weights are held once whatever the number of threads. An array
 * that several calls read is copied once. Moving each call as soon as it is prepared lets
 * the unshared form go before the next is made, so that the weights never exist twice.
 */
export class SharedWeights {
  /** Shared copies by the array they copy: weak, so that the unshared array can go once no call reads it. */
  private readonly copies = new WeakMap<TypedArray, TypedArray>();
  /** Bytes held in shared memory. */
  bytes = 0;

  /** `isConstant(call, k)`: is input k of the call a constant? */
  constructor(private readonly isConstant: (call: KernelCall, input: number) => boolean) {}

  /** The call reading shared copies of its constants and prepared arrays. */
  share(call: KernelCall): KernelCall {
    const fresh: TypedArray[] = [];
    const note = (array: TypedArray): void => {
      if (!this.copies.has(array) && array.byteLength > 0 && !fresh.includes(array)) fresh.push(array);
    };
    call.inputs.forEach((data, k) => {
      if (data !== undefined && this.isConstant(call, k)) note(data);
    });
    if (call.prepared !== undefined) walk(call.prepared, call, note);
    let size = 0;
    const offsets = fresh.map((array) => {
      size = Math.ceil(size / 8) * 8; // every element type's alignment
      const offset = size;
      size += array.byteLength;
      return offset;
    });
    if (fresh.length > 0) {
      const shared = new SharedArrayBuffer(size);
      fresh.forEach((array, k) => {
        const copy = new (array.constructor as TypedArrayConstructor)(shared, offsets[k], array.length);
        (copy as Float32Array).set(array as Float32Array);
        this.copies.set(array, copy);
      });
      this.bytes += size;
    }
    const swap = <T>(array: T): T => (this.copies.get(array as TypedArray) as T | undefined) ?? array;
    return {
      ...call,
      inputs: call.inputs.map((data, k) => (data !== undefined && this.isConstant(call, k) ? swap(data) : data)),
      ...(call.prepared === undefined ? {} : { prepared: walk(call.prepared, call, undefined, swap) }),
    };
  }
}

/**
 * Visits a prepared form's typed arrays (`visit`) or rebuilds it with each replaced
 * (`swap`). Only plain data can cross to a worker thread as it is: anything else is an
 * error naming the node.
 */
function walk<T>(value: T, call: KernelCall, visit?: (array: TypedArray) => void, swap?: <A>(array: A) => A): T {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    visit?.(value as unknown as TypedArray);
    return swap ? swap(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, call, visit, swap)) as T;
  if (value !== null && typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new Error(`node ${call.node.name} (${call.node.op}): its prepared weights hold a ${(value as object).constructor?.name ?? 'non-plain object'}, which cannot cross to a worker thread (prepared forms must be plain data).`);
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, call, visit, swap)])) as T;
  }
  return value;
}
