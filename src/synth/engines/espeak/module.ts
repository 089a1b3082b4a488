// The bundled espeak-ng Emscripten build and its data folder: the one place that loads it and says how it
// looks. The package ships no typings; these structural ones cover only what Voxsmith calls.
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { readFully } from '../../../read-fully.ts';

export interface EspeakRawEvent {
  type: string;
  text_position: number;
  word_length: number;
  audio_position: number;
  /** A phoneme event's phoneme (IPA), a word or sentence event's number. */
  id?: string | number;
}

export interface EspeakRawVoice {
  name: string;
  identifier: string;
  languages: { priority: number; name: string }[];
}

/**
 * A NUL-terminated UTF-8 string already in the module's memory. The binding copies a JS string into a buffer
 * of its own that it grows with malloc and free from JS, which a caller that restores the memory must avoid.
 */
export interface EspeakCString {
  ptr: number;
}

export interface EspeakRawWorker {
  list_voices(): EspeakRawVoice[];
  /** 0 on success; on failure espeak silently keeps the previous voice. */
  set_voice(name: string | EspeakCString): number;
  set_rate(wpm: number): void;
  synthesize(text: string | EspeakCString, callback: (samples: Int16Array | null, events: EspeakRawEvent[]) => boolean): void;
  /** IPA (ipa = 1) of `text`, as a pointer wrapper for the module's getPointer. */
  text_to_phonemes(text: string, ipa: number): unknown;
}

export interface EspeakRawModule {
  eSpeakNGWorker: new () => EspeakRawWorker;
  /** The module's whole memory; a new view when it grows. */
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  getPointer(wrapped: unknown): number;
  FS: {
    readdir(path: string): string[];
    readFile(path: string, opts: { encoding: 'utf8' }): string;
    writeFile(path: string, data: string): void;
  };
}

export const ESPEAK_DATA_DIR = '/usr/share/espeak-ng-data';
/** Shipped variant files (the part after `+` in `en+f3`); variants rendered from controls are written here too. */
export const ESPEAK_VARIANT_DIR = `${ESPEAK_DATA_DIR}/voices/!v`;
/** Language voice files, by identifier (`gmw/en-US`). */
export const ESPEAK_LANG_DIR = `${ESPEAK_DATA_DIR}/lang`;

const PACKAGE = '@echogarden/espeak-ng-emscripten';

/**
 * espeak-ng-data (24 MB: every language's dictionary) as the package's preloaded data file, read once and
 * shared: each instance of the module otherwise read its own copy into memory, and a process holds one per
 * worker thread, plus one per thread that phonemizes. A SharedArrayBuffer crosses to the worker threads
 * (workerData) without a copy; the file system of each instance keeps views into it and never writes them.
 */
export type EspeakData = SharedArrayBuffer;

let data: EspeakData | undefined;

const dataPath = (): string => createRequire(import.meta.url).resolve(`${PACKAGE}/espeak-ng.data`);

/** Reads the data file into shared memory; instances made after useEspeakData(d) take `d` instead. */
export function readEspeakData(): EspeakData {
  const bytes = readFileSync(dataPath());
  const shared = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/** The same, read straight into the shared memory without blocking the thread (the service's start-up). */
export async function readEspeakDataAsync(): Promise<EspeakData> {
  const file = await open(dataPath());
  try {
    const { size } = await file.stat();
    const shared = new SharedArrayBuffer(size);
    await readFully(file, new Uint8Array(shared), 0);
    return shared;
  } finally {
    await file.close();
  }
}

/** The data this thread's instances use: the main thread's copy, handed over in workerData. */
export function useEspeakData(shared: EspeakData): void {
  data = shared;
}

/**
 * The data as the Emscripten loader takes a preloaded package: it asserts that the constructor is named
 * ArrayBuffer, then only views the bytes through a Uint8Array, which works on a SharedArrayBuffer as well.
 * The property goes on this thread's own wrapper object of the shared memory, which nothing else sees.
 */
function asPreloadedPackage(shared: EspeakData): ArrayBuffer {
  if (!Object.hasOwn(shared, 'constructor')) Object.defineProperty(shared, 'constructor', { value: ArrayBuffer });
  return shared as unknown as ArrayBuffer;
}

/** A fresh instance of the wasm module (each has its own file system and voice state, over the shared data). */
export async function loadEspeakModule(): Promise<EspeakRawModule> {
  data ??= readEspeakData();
  const shared = data;
  // Imported through a constant, not a literal: the package has no typings, the structural ones above stand in.
  const imported = (await import(PACKAGE)) as { default: (options: object) => Promise<EspeakRawModule> };
  return imported.default({ getPreloadedPackage: () => asPreloadedPackage(shared) });
}
