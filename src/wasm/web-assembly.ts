// The project's lib settings carry no WebAssembly typings (no DOM lib, and @types/node 20 has none): the part
// of the global WebAssembly object the service uses, typed once.

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** Adds pages of 64 KiB; `buffer` is then a new ArrayBuffer. */
  grow(pages: number): number;
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

interface WebAssemblyApi {
  /** Compiles synchronously (start-up only: it blocks the thread). */
  Module: { new (bytes: Uint8Array): object; imports(module: object): { module: string; name: string; kind: string }[] };
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => WasmInstance;
  Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<object>;
}

export const WebAssemblyApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
