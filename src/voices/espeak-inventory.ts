// What the bundled espeak-ng build ships: its language voices, its variant files, and a way to render one.
// Used by scripts/gen-voice-catalog.ts and by the catalog tests only; the service itself never loads the
// engine on the main thread (it reads the generated builtin-voices.json instead).

export const ESPEAK_SAMPLE_RATE = 22_050;
const VARIANT_DIR = '/usr/share/espeak-ng-data/voices/!v';

export interface EspeakLanguage {
  priority: number;
  name: string;
}

export interface EspeakVoiceEntry {
  /** espeak-ng's display name, e.g. "English (Scotland)". */
  name: string;
  /** e.g. "gmw/en-GB-scotland". */
  identifier: string;
  languages: EspeakLanguage[];
  /** The name `set_voice` resolves: the identifier's file name, lower-cased, e.g. "en-gb-scotland". */
  base: string;
}

export interface EspeakVariant {
  /** File name under voices/!v, the part after `+` in `en+f3`. */
  file: string;
  name: string;
  gender?: 'female' | 'male';
}

export interface EspeakInventory {
  voices: EspeakVoiceEntry[];
  variants: EspeakVariant[];
  /** Whether `set_voice(name)` finds the voice; espeak keeps the previous voice silently when it does not. */
  selects(name: string): boolean;
  /** Renders text with `set_voice(name)`; 16-bit mono samples at ESPEAK_SAMPLE_RATE. */
  render(name: string, text: string): Int16Array;
}

// Structural view of the Emscripten module: only the parts used here.
interface RawVoice {
  name: string;
  identifier: string;
  languages: EspeakLanguage[];
}
interface RawWorker {
  list_voices(): RawVoice[];
  set_voice(name: string): number;
  synthesize(text: string, callback: (samples: Int16Array, events: unknown[]) => boolean): void;
}
interface RawModule {
  eSpeakNGWorker: new () => RawWorker;
  FS: {
    readdir(path: string): string[];
    readFile(path: string): Uint8Array;
  };
}

export function baseNameOf(identifier: string): string {
  return (identifier.split('/').pop() ?? identifier).toLowerCase();
}

export function parseVariant(file: string, text: string): EspeakVariant {
  let name = file;
  let gender: EspeakVariant['gender'];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    const [key, value] = line.split(/\s+/, 2);
    if (key === 'name' && value) name = value;
    if (key === 'gender' && value) {
      const g = value.toLowerCase();
      if (g === 'female' || g === 'male') gender = g;
    }
  }
  return gender ? { file, name, gender } : { file, name };
}

export async function loadEspeakInventory(): Promise<EspeakInventory> {
  // A computed specifier keeps this file independent of whichever ambient typing the engine code declares.
  const specifier = '@echogarden/espeak-ng-emscripten';
  const imported = (await import(specifier)) as { default: () => Promise<RawModule> };
  const mod = await imported.default();
  const worker = new mod.eSpeakNGWorker();

  const voices = worker.list_voices().map((v) => ({
    name: v.name,
    identifier: v.identifier,
    languages: v.languages.map((l) => ({ priority: l.priority, name: l.name })),
    base: baseNameOf(v.identifier),
  }));

  const decoder = new TextDecoder();
  const variants = mod.FS.readdir(VARIANT_DIR)
    .filter((f) => !f.startsWith('.'))
    .map((f) => parseVariant(f, decoder.decode(mod.FS.readFile(`${VARIANT_DIR}/${f}`))));

  return {
    voices,
    variants,
    selects: (name) => worker.set_voice(name) === 0,
    render(name, text) {
      if (worker.set_voice(name) !== 0) throw new Error(`espeak-ng does not know the voice "${name}"`);
      const chunks: Int16Array[] = [];
      worker.synthesize(text, (samples) => {
        chunks.push(samples.slice());
        return false;
      });
      const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
      let offset = 0;
      for (const c of chunks) {
        out.set(c, offset);
        offset += c.length;
      }
      return out;
    },
  };
}

/** Seconds of clearly audible signal (|sample| above about -30 dBFS). */
export function audibleSeconds(samples: Int16Array, sampleRate = ESPEAK_SAMPLE_RATE): number {
  let loud = 0;
  for (const s of samples) if (s > 1000 || s < -1000) loud++;
  return loud / sampleRate;
}

/** Median fundamental frequency over voiced frames, by plain autocorrelation; 0 when nothing is voiced. */
export function medianPitchHz(samples: Int16Array, sampleRate = ESPEAK_SAMPLE_RATE): number {
  const frame = 1024;
  const minLag = Math.floor(sampleRate / 500);
  const maxLag = Math.floor(sampleRate / 60);
  const found: number[] = [];
  for (let start = 0; start + frame <= samples.length; start += frame) {
    let energy = 0;
    for (let j = 0; j < frame; j++) energy += samples[start + j] * samples[start + j];
    if (energy / frame < 1e5) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0;
      for (let j = 0; j < frame - lag; j++) c += samples[start + j] * samples[start + j + lag];
      c /= frame - lag;
      if (c > best) {
        best = c;
        bestLag = lag;
      }
    }
    if (bestLag > 0) found.push(sampleRate / bestLag);
  }
  if (found.length === 0) return 0;
  found.sort((a, b) => a - b);
  return found[Math.floor(found.length / 2)];
}
