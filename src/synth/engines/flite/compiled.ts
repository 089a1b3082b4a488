// The flite library (flite.wasm, built by scripts/build-flite-wasm.sh from Debian's flite source and
// resident.c) compiled, apart from the code that runs it (library.ts): the main thread compiles it once and
// hands it to the workers, without loading the engine itself.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { WebAssemblyApi } from '../../../wasm/web-assembly.ts';

/**
 * The library compiled, as the main thread hands it to each worker thread (workerData): a WebAssembly.Module
 * crosses threads without a copy, so the threads share one compiled library (measured with the earlier
 * program: 41 MiB less with two workers than each compiling its own).
 */
export interface CompiledFlite {
  module: object;
}

/** Where the library is: beside this file, in src/ and in dist/ alike (the build copies it). */
export const fliteWasmPath = (): string => fileURLToPath(new URL('./flite.wasm', import.meta.url));

/** Compiles the library (synchronously: once, where start-up time does not matter). */
export function compileFlite(): CompiledFlite {
  return { module: new WebAssemblyApi.Module(readFileSync(fliteWasmPath())) };
}

/** The same, with the file read and the compiling off the main thread's way (the service's start-up). */
export async function compileFliteAsync(): Promise<CompiledFlite> {
  return { module: await WebAssemblyApi.compile(await readFile(fliteWasmPath())) };
}
