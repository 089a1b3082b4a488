// The bundled espeak-ng Emscripten build and its data folder: the one place that loads it and says how it
// looks. The package ships no typings; these structural ones cover only what Voxsmith calls.

export interface EspeakRawEvent {
  type: string;
  text_position: number;
  word_length: number;
  audio_position: number;
}

export interface EspeakRawVoice {
  name: string;
  identifier: string;
  languages: { priority: number; name: string }[];
}

export interface EspeakRawWorker {
  list_voices(): EspeakRawVoice[];
  /** 0 on success; on failure espeak silently keeps the previous voice. */
  set_voice(name: string): number;
  set_rate(wpm: number): void;
  synthesize(text: string, callback: (samples: Int16Array | null, events: EspeakRawEvent[]) => boolean): void;
}

export interface EspeakRawModule {
  eSpeakNGWorker: new () => EspeakRawWorker;
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

/** A fresh instance of the wasm module (each has its own file system and voice state). */
export async function loadEspeakModule(): Promise<EspeakRawModule> {
  // A computed specifier: the package has no typings, the structural ones above stand in for them.
  const specifier = '@echogarden/espeak-ng-emscripten';
  const imported = (await import(specifier)) as { default: () => Promise<EspeakRawModule> };
  return imported.default();
}
