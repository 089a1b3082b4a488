import type { EngineInfo, EngineVoiceInfo } from '../../engine.ts';
import { flitePitch } from './pitch.ts';

export const FLITE_SAMPLE_RATE = 16000;
/** duration_stretch = the voice's own stretch / rate; flite stays intelligible across this whole range. */
export const FLITE_MIN_RATE = 0.25;
export const FLITE_MAX_RATE = 4;

export interface FliteVoiceEntry extends EngineVoiceInfo {
  sampleRate: number;
  /**
   * The duration_stretch the voice sets for itself (flite's voice definitions; measured against Debian's
   * flite 2.2 by rendering with and without `--setf duration_stretch=1`). Speed 1 means this pace, so the
   * stretch we pass is this divided by the rate, never a bare 1/rate that overrides it.
   */
  defaultStretch: number;
  /**
   * The voice whose phones of words stand for this voice's in the word timings' pronunciation cache: slt, awb
   * and rms look words up in the same lexicon and letter-to-sound rules as kal16 (measured: identical phones
   * for 291 words), so the three share its entries. kal's older lexicon differs.
   */
  lexiconVoice?: string;
}

export const FLITE_VOICES: readonly FliteVoiceEntry[] = [
  {
    base: 'slt',
    lexiconVoice: 'kal16',
    name: 'CMU US SLT',
    languages: ['en-us', 'en'],
    gender: 'female',
    sampleRate: 16000,
    defaultStretch: 1,
  },
  {
    base: 'awb',
    lexiconVoice: 'kal16',
    name: 'CMU US AWB (Scottish speaker)',
    languages: ['en-gb-scotland', 'en'],
    gender: 'male',
    sampleRate: 16000,
    defaultStretch: 1,
  },
  // rms predicts F0 with its own model (spamf0) and ignores int_f0_target_mean: measured 106 Hz at any setting.
  {
    base: 'rms',
    lexiconVoice: 'kal16',
    name: 'CMU US RMS',
    languages: ['en-us', 'en'],
    gender: 'male',
    sampleRate: 16000,
    defaultStretch: 1,
    controls: ['rate'],
  },
  { base: 'kal16', name: 'CMU US KAL (16 kHz)', languages: ['en-us', 'en'], gender: 'male', sampleRate: 16000, defaultStretch: 1.1 },
  { base: 'kal', name: 'CMU US KAL (8 kHz)', languages: ['en-us', 'en'], gender: 'male', sampleRate: 8000, defaultStretch: 1.1 },
];

export function findFliteVoice(base: string): FliteVoiceEntry | undefined {
  const b = base.trim().toLowerCase();
  return FLITE_VOICES.find((v) => v.base === b);
}

export const fliteInfo: EngineInfo = {
  id: 'flite',
  label: 'Flite',
  description: 'CMU Flite diphone/cluster-unit voices: the most intelligible English here; one sentence at a time.',
  languages: ['en', 'en-gb-scotland', 'en-us'],
  sampleRate: FLITE_SAMPLE_RATE,
  capabilities: {
    controls: ['pitchHz', 'rate'],
    speedRange: [FLITE_MIN_RATE, FLITE_MAX_RATE],
    // Its own phones (CMU lexicon, then letter-to-sound rules) from `flite -ps`.
    phonemes: 'arpabet',
    phonemeInput: false,
    breeding: 'genome',
    natural: false,
  },
  voices: FLITE_VOICES.map(({ base, name, languages, gender, controls }) => ({
    base,
    name,
    languages,
    ...(gender ? { gender } : {}),
    ...(controls ? { controls } : {}),
  })),
  variants: [],
  pitch: flitePitch,
  // Clearer than espeak, below every neural voice.
  quality: () => 100,
};

export function fliteLanguageOf(base: string): string | undefined {
  return findFliteVoice(base)?.languages[0];
}
