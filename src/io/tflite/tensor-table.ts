import { DTYPE_BYTES, type DType } from '../../graph/dtype.ts';
import { constantIntegers, constantView, needsCopy } from './constant-data.ts';
import type { FlatBuffer, TableVector } from './flatbuffer-reader.ts';
import { bufferData, tensorFields, type ByteRange, type TensorFields } from './schema-fields.ts';
import { dtypeOfTensorType, tensorTypeName } from './tensor-types.ts';

/** More dimensions than any real model uses; bounds the work of shape checks on corrupt files. */
export const MAX_RANK = 16;

export interface TensorEntry {
  readonly index: number;
  /** Unique within the graph: the file's name, made unique with `#index` when needed. */
  readonly name: string;
  readonly fields: TensorFields;
  /** The shape with -1 for dynamic dimensions (the signature when the file has one). */
  readonly pattern: readonly number[];
  readonly dynamic: boolean;
}

/**
 * Why a shape cannot be used: more than MAX_RANK dimensions, a dimension that is not a
 * whole number >= 0, or more elements than sizes in bytes can count exactly.
 */
export function shapeProblem(shape: readonly number[]): string | undefined {
  if (shape.length > MAX_RANK) return `has ${shape.length} dimensions, more than the ${MAX_RANK} memplan supports`;
  let elements = 1;
  for (const dim of shape) {
    if (!Number.isSafeInteger(dim) || dim < 0) return `has the dimension ${dim}, which is not a whole number >= 0`;
    elements *= dim;
  }
  if (elements * 8 > Number.MAX_SAFE_INTEGER) return `has ${elements} elements, too many to count in bytes exactly`;
  return undefined;
}

/**
 * The tensors of the subgraph: their unique names, shapes, element types and constant
 * data. Names are assigned to every tensor in index order; element types and data are
 * checked only for the tensors the graph uses.
 */
export class TensorTable {
  private readonly entries: TensorEntry[] = [];
  private readonly ranges = new Map<number, ByteRange | undefined>();
  private readonly views = new Map<string, ArrayBufferView>();

  constructor(
    private readonly bytes: Uint8Array,
    private readonly buffer: FlatBuffer,
    tensors: TableVector,
    private readonly buffers: TableVector,
    private readonly inputError: (problem: string) => never,
  ) {
    const taken = new Set<string>();
    for (let index = 0; index < tensors.length; index++) {
      const fields = tensorFields(tensors.at(index));
      let name = fields.name === '' ? `tensor#${index}` : fields.name;
      while (taken.has(name)) name = `${name}#${index}`;
      taken.add(name);
      const pattern = fields.shapeSignature ?? fields.shape;
      const dynamic = pattern.some((d) => d < 0) || fields.shape.some((d) => d < 0);
      this.entries.push({ index, name, fields, pattern, dynamic });
    }
  }

  get count(): number {
    return this.entries.length;
  }

  /** The tensor at `index`; a corrupt-file error naming `user` when there is none. */
  at(index: number, user: string): TensorEntry {
    const entry = this.entries[index];
    if (!Number.isInteger(index) || entry === undefined) {
      this.buffer.corrupt(`${user} refers to tensor ${index}, but the subgraph has ${this.entries.length} tensors`);
    }
    return entry;
  }

  dtype(entry: TensorEntry): DType {
    const dtype = dtypeOfTensorType(entry.fields.type);
    if (dtype === undefined) {
      this.inputError(`tensor "${entry.name}" has the element type ${tensorTypeName(entry.fields.type)}, which memplan does not support.`);
    }
    return dtype;
  }

  /** The shape the file stores, when it is static; an InputError naming the tensor when it is not usable. */
  storedShape(entry: TensorEntry): readonly number[] {
    const problem = shapeProblem(entry.fields.shape);
    if (problem !== undefined) this.inputError(`tensor "${entry.name}" ${problem}.`);
    return entry.fields.shape;
  }

  /** The range of the file holding the tensor's data; undefined for a tensor without data. */
  data(entry: TensorEntry): ByteRange | undefined {
    const index = entry.fields.buffer;
    if (!this.ranges.has(index)) {
      if (index >= this.buffers.length) {
        this.buffer.corrupt(`tensor ${entry.index} refers to buffer ${index}, but the model has ${this.buffers.length} buffers`);
      }
      this.ranges.set(index, bufferData(this.buffer, this.buffers.at(index)));
    }
    return this.ranges.get(index);
  }

  /** Constant iff the tensor's buffer is not empty. */
  isConstant(entry: TensorEntry): boolean {
    return this.data(entry) !== undefined;
  }

  /** A constant's data as a typed array (see constantView); one view per buffer and element type. */
  view(entry: TensorEntry): ArrayBufferView | undefined {
    const range = this.data(entry);
    if (range === undefined) return undefined;
    const dtype = this.dtype(entry);
    const key = `${entry.fields.buffer}:${dtype}`;
    let view = this.views.get(key);
    if (view === undefined) {
      if (range.length % DTYPE_BYTES[dtype] !== 0) {
        this.inputError(`tensor "${entry.name}" has ${range.length} bytes of data, not a whole number of ${dtype} elements.`);
      }
      if (needsCopy(this.bytes, range, dtype)) this.buffer.spend(range.length, `the data of tensor ${entry.index}`);
      view = constantView(this.bytes, range, dtype);
      this.views.set(key, view);
    }
    return view;
  }

  /** An integer constant's values; undefined when the tensor is not an integer constant. */
  integers(entry: TensorEntry): number[] | undefined {
    const range = this.data(entry);
    if (range === undefined) return undefined;
    this.buffer.spend(range.length, `the data of tensor ${entry.index}`);
    return constantIntegers(this.bytes, range, this.dtype(entry));
  }
}
