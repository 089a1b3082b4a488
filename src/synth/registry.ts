// The engines as metadata. Their modules are imported on first use only, and only worker threads call
// loadEngine(): the main thread never pays for (or holds) a speech engine.
import { UnknownVoiceError, type Engine, type EngineInfo, type EngineModule } from './engine.ts';
import { espeakInfo, espeakLanguageOf } from './engines/espeak/info.ts';
import { fliteInfo, fliteLanguageOf } from './engines/flite/info.ts';
import { kokoroInfo, kokoroLanguageOf } from './engines/kokoro/info.ts';
import type { PhonemeRewrite } from './engines/espeak/phonemize.ts';
import { forkIpa } from './engines/piper/fork-ipa.ts';
import { piperInfo, piperLanguageOf } from './engines/piper/info.ts';
import { importTs } from './ts-import.ts';
import type { EngineId, VoiceSpec } from './voice-spec.ts';

interface EngineEntry {
  info: EngineInfo;
  languageOf(base: string): string | undefined;
  load(): Promise<EngineModule>;
  /** The phonemes (in info.capabilities.phonemes) of each word of one sentence, as the voice says them. */
  phonemize(sentence: string, words: readonly string[], base: string): Promise<string[]>;
}

/** Through espeak-ng's voice `espeakVoice`: espeak's own voices, and the neural ones that speak its IPA. */
async function espeakPhonemes(
  id: EngineId,
  base: string,
  espeakVoice: string | undefined,
  sentence: string,
  words: readonly string[],
  rewrite?: PhonemeRewrite,
): Promise<string[]> {
  if (espeakVoice === undefined) throw new UnknownVoiceError(id, base);
  const { wordPhonemes } = await importTs(() => import('./engines/espeak/phonemize.ts'));
  return wordPhonemes(sentence, words, espeakVoice, rewrite);
}

const ENTRIES: Readonly<Record<EngineId, EngineEntry>> = {
  espeak: {
    info: espeakInfo,
    languageOf: espeakLanguageOf,
    load: () => importTs(() => import('./engines/espeak/engine.ts')),
    phonemize: (sentence, words, base) => espeakPhonemes('espeak', base, base, sentence, words),
  },
  flite: {
    info: fliteInfo,
    languageOf: fliteLanguageOf,
    load: () => importTs(() => import('./engines/flite/engine.ts')),
    async phonemize(_sentence, words, base) {
      const { flitePhones } = await importTs(() => import('./engines/flite/phones.ts'));
      return flitePhones(words, base);
    },
  },
  // Their voices are the models installed from VOICES_DIR (neural-models.ts); onnxruntime loads on first use.
  piper: {
    info: piperInfo,
    languageOf: piperLanguageOf,
    load: () => importTs(() => import('./engines/piper/engine.ts')),
    phonemize: (sentence, words, base) => {
      const language = piperLanguageOf(base);
      // The IPA the voice is given: written back to that of Piper's espeak-ng fork.
      return espeakPhonemes('piper', base, language, sentence, words, language === undefined ? undefined : forkIpa(language));
    },
  },
  kokoro: {
    info: kokoroInfo,
    languageOf: kokoroLanguageOf,
    load: () => importTs(() => import('./engines/kokoro/engine.ts')),
    phonemize: (sentence, words, base) => espeakPhonemes('kokoro', base, kokoroLanguageOf(base), sentence, words),
  },
};

export const ENGINE_IDS: readonly EngineId[] = Object.keys(ENTRIES) as EngineId[];

export const ENGINES: readonly EngineInfo[] = ENGINE_IDS.map((id) => ENTRIES[id].info);

export function isEngineId(value: string): value is EngineId {
  return Object.hasOwn(ENTRIES, value);
}

export function engineInfo(id: EngineId): EngineInfo {
  return ENTRIES[id].info;
}

/** The voice's language as its engine names it (`en-us`, `de`, `cmn`), or undefined for an unknown base. */
export function languageOf(voice: VoiceSpec): string | undefined {
  return isEngineId(voice.engine) ? ENTRIES[voice.engine].languageOf(voice.base) : undefined;
}

export function isEnglishVoice(voice: VoiceSpec): boolean {
  const lang = languageOf(voice);
  return lang !== undefined && (lang === 'en' || lang.startsWith('en-'));
}

/** The phonemes of each word of one sentence as the voice says them, in its engine's phoneme set. */
export async function phonemizeWords(voice: VoiceSpec, sentence: string, words: readonly string[]): Promise<string[]> {
  if (words.length === 0) return [];
  return ENTRIES[voice.engine].phonemize(sentence, words, voice.base);
}

/** Whether the spec names a voice its engine ships (variants and controls are checked at synthesis). */
export function isKnownVoice(voice: VoiceSpec): boolean {
  return languageOf(voice) !== undefined;
}

const loaded = new Map<EngineId, Promise<Engine>>();

/** The engine instance of this thread, created on first use and reused after. */
export function loadEngine(id: EngineId): Promise<Engine> {
  let p = loaded.get(id);
  if (!p) {
    p = ENTRIES[id].load().then((m) => m.createEngine());
    // A failed load may succeed later (e.g. a transient read error); do not cache the rejection.
    p.catch(() => loaded.delete(id));
    loaded.set(id, p);
  }
  return p;
}
