import type { EngineInfo, EngineVoiceInfo } from '../../engine.ts';
import { ESPEAK_VARIANT_TABLE, ESPEAK_VOICE_TABLE } from './inventory.ts';
import { ESPEAK_DEFAULT_PITCH } from './variant.ts';

export const ESPEAK_SAMPLE_RATE = 22_050;
/** Words per minute at speed 1, and the range set_rate honours (this build has no sonic speed-up above 450). */
export const ESPEAK_BASE_WPM = 175;
export const ESPEAK_MIN_WPM = 80;
export const ESPEAK_MAX_WPM = 450;

export interface EspeakVoiceEntry extends EngineVoiceInfo {
  /** What set_voice selects reliably (language codes such as `en-gb` are not file names, so they fail). */
  identifier: string;
}

export const ESPEAK_VOICES: readonly EspeakVoiceEntry[] = ESPEAK_VOICE_TABLE.map(([base, identifier, name, langs]) => ({
  base,
  identifier,
  name,
  languages: langs.split(' '),
}));

const byKey = new Map<string, EspeakVoiceEntry>();
// Most specific first: file name, identifier, display name, then primary language code (`en-gb`, `fr-fr`).
for (const key of ['base', 'identifier', 'name', 'lang'] as const) {
  for (const v of ESPEAK_VOICES) {
    const k = (key === 'lang' ? v.languages[0] : v[key]).toLowerCase();
    if (!byKey.has(k)) byKey.set(k, v);
  }
}

/** Finds a language voice by any name espeak-ng lists for it (case-insensitive). */
export function findEspeakVoice(base: string): EspeakVoiceEntry | undefined {
  return byKey.get(base.trim().toLowerCase());
}

export interface EspeakVariant {
  /** File name under voices/!v, the part after `+` in `en+f3`. */
  file: string;
  /** The file's `gender` line, where it has one. */
  gender?: 'female' | 'male';
}

export const ESPEAK_VARIANTS: readonly EspeakVariant[] = ESPEAK_VARIANT_TABLE.map(([file, gender]) =>
  gender ? { file, gender } : { file },
);

const variantNames = new Map(ESPEAK_VARIANTS.map(({ file }) => [file.toLowerCase(), file]));

/** The shipped variant file name for `variant` (case-insensitive), if espeak ships it. */
export function findEspeakVariant(variant: string): string | undefined {
  return variantNames.get(variant.trim().toLowerCase());
}

export const espeakInfo: EngineInfo = {
  id: 'espeak',
  label: 'eSpeak NG',
  description: 'Formant synthesizer with about 130 languages and accents; robotic but clear, very fast.',
  languages: [...new Set(ESPEAK_VOICES.flatMap((v) => v.languages))].sort(),
  sampleRate: ESPEAK_SAMPLE_RATE,
  capabilities: {
    controls: ['pitchHz', 'pitchRangeHz', 'rate', 'formantScale', 'breath', 'flutter', 'roughness'],
    speedRange: [ESPEAK_MIN_WPM / ESPEAK_BASE_WPM, ESPEAK_MAX_WPM / ESPEAK_BASE_WPM],
    phonemes: 'ipa',
    phonemeInput: true,
    breeding: 'genome',
    natural: false,
  },
  voices: ESPEAK_VOICES.map(({ base, name, languages }) => ({ base, name, languages })),
  variants: ESPEAK_VARIANTS.map(({ file }) => file),
  // The pitch control sets the base of espeak's own pitch line, which is what a relative change scales.
  pitch: {
    naturalHz: () => ESPEAK_DEFAULT_PITCH[0],
    controllable: () => true,
    controlFor: (_base, hz) => hz,
  },
  quality: () => 0,
};

/** The voice's primary language code as espeak lists it (`en-gb`, `de`, `cmn`). */
export function espeakLanguageOf(base: string): string | undefined {
  return findEspeakVoice(base)?.languages[0];
}
