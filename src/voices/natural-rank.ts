// Which voices sound natural, and how good each is: the one ranking behind the default voice, OpenAI's voice
// names, list order and search. Natural voices are the neural ones (Piper, Kokoro) installed in VOICES_DIR.
import { engineInfo } from '../synth/registry.ts';
import type { Gender, Voice } from './voice.ts';

export function isNatural(v: Pick<Voice, 'engine'>): boolean {
  return engineInfo(v.engine).capabilities.natural;
}

/**
 * Piper's voice files carry no gender; these are the speakers of its published single-speaker datasets, as
 * their model cards and samples describe them. A dataset not listed stays `neutral`.
 */
export const PIPER_DATASET_GENDER: Readonly<Record<string, Gender>> = {
  // English
  lessac: 'female',
  amy: 'female',
  kathleen: 'female',
  kristin: 'female',
  ljspeech: 'female',
  hfc_female: 'female',
  alba: 'female',
  cori: 'female',
  jenny_dioco: 'female',
  southern_english_female: 'female',
  ryan: 'male',
  joe: 'male',
  john: 'male',
  kusal: 'male',
  danny: 'male',
  bryce: 'male',
  norman: 'male',
  hfc_male: 'male',
  sam: 'male',
  alan: 'male',
  northern_english_male: 'male',
  // German, French, Spanish, Italian, Dutch, Portuguese and others
  thorsten: 'male',
  karlsson: 'male',
  pavoque: 'male',
  eva_k: 'female',
  kerstin: 'female',
  ramona: 'female',
  siwis: 'female',
  tom: 'male',
  gilles: 'male',
  davefx: 'male',
  carlfm: 'male',
  claude: 'male',
  ald: 'male',
  sharvard: 'male',
  paola: 'female',
  riccardo: 'male',
  nathalie: 'female',
  ronnie: 'male',
  pim: 'male',
  faber: 'male',
  cadu: 'male',
  tugao: 'male',
  irina: 'female',
  denis: 'male',
  dmitri: 'male',
  ruslan: 'male',
  nst: 'male',
  talesyntese: 'male',
  gosia: 'female',
  darkman: 'male',
  mc_speech: 'female',
  berto: 'male',
  harri: 'male',
};

/** Higher is better: Kokoro above Piper (a larger model), Piper by quality, then the built-in engines. */
export function qualityScore(v: Pick<Voice, 'engine' | 'tags' | 'spec'>): number {
  return engineInfo(v.engine).quality({ base: v.spec.base, tags: v.tags });
}

/** Best first; ties keep their order. */
export function byQuality<T extends Pick<Voice, 'engine' | 'tags' | 'spec'>>(voices: readonly T[]): T[] {
  return voices
    .map((v, i) => ({ v, i, score: qualityScore(v) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.v);
}

const isEnglish = (v: Pick<Voice, 'language'>): boolean => /^en(-|$)/i.test(v.language);

/**
 * The natural English voice that best stands for a voice of `gender` (the default voice, OpenAI's voice names):
 * the best of that gender, else the best of any; undefined when none is installed.
 */
export function bestNaturalEnglish(voices: readonly Voice[], gender?: Gender): Voice | undefined {
  const english = byQuality(voices.filter((v) => isNatural(v) && isEnglish(v)));
  return (gender ? english.find((v) => v.gender === gender) : undefined) ?? english[0];
}
