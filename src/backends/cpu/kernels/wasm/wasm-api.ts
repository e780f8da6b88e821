/**
 * The part of the WebAssembly API the kernels use, typed here: the project's type libraries
 * do not declare `WebAssembly` as a value. One declaration for the engine and the tile kernel.
 */

/** A WebAssembly.Memory: 64 KiB pages, so a view at a multiple of 4096 bytes suits O_DIRECT. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

/** This runtime's WebAssembly, or undefined where it has none. */
export function wasmApi(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}
