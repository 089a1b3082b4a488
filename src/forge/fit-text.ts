// The fixed text the forge renders to measure a voice (calibration of the base voices, and every step of
// a clone's fit). Fixed, so that measurements of different voices compare; varied in its sounds and
// phrasing, so that the syllable rate measured on it is close to that of ordinary speech.
import { createHash } from 'node:crypto';
import { matchesLanguage } from '../voices/filter.ts';

const ENGLISH =
  'Every morning the baker opens his little shop before the sun comes up. ' +
  'People wait outside in the cold, talking quietly about the weather and the news. ' +
  'By nine o\u2019clock, most of the bread is gone again.';

// Numerals are written the same in most scripts and every espeak language reads them in its own words,
// so one text serves the languages that have no text of their own here.
const NUMBERS = '1 2 3 4 5 6 7 8 9 10. 21, 35, 47, 58. 250, 2024.';

/** The fit text for a language tag (BCP 47, any case). */
export function fitTextFor(language: string): string {
  return matchesLanguage(language, 'en') ? ENGLISH : NUMBERS;
}

// Checks a finished clone on words it was not fitted on (nor, most likely, recorded saying).
const ENGLISH_HELD_OUT =
  'The river was higher than anyone could remember, and the old bridge creaked under the carts. ' +
  'Still, the farmers crossed it every Tuesday, because the market would not wait for them.';
const NUMBERS_HELD_OUT = '11 12 13 14 15 16 17 18 19 20. 64, 73, 86, 99. 480, 1999.';

/** The held-out text for a language tag. */
export function heldOutTextFor(language: string): string {
  return matchesLanguage(language, 'en') ? ENGLISH_HELD_OUT : NUMBERS_HELD_OUT;
}

// Heard by a recognizer to rank the base voices by how intelligible they are (the calibration script measures
// each English base's word error rate on them). Short everyday sentences, each said on its own, with no digits
// or symbols, so that what is scored is the voice and not how text is read out.
const ENGLISH_INTELLIGIBILITY = [
  'The kitchen window was left open all night.',
  'Bring your umbrella in case it rains later.',
  'He found the keys under a pile of papers.',
  'Our train was late because of the snow.',
  'She likes to walk along the river after dinner.',
  'The teacher asked the class to sit quietly.',
  'We need more chairs for the party on Sunday.',
  'The old dog slept in the sun by the door.',
  'Please write your name at the top of the page.',
  'They painted the fence green last summer.',
  'A small boat drifted slowly across the lake.',
  'The soup is too hot to eat right now.',
] as const;

/** Sentences to measure a base voice's word error rate on, for the languages a recognizer is at hand for. */
export function intelligibilityTextsFor(language: string): readonly string[] | undefined {
  return matchesLanguage(language, 'en') ? ENGLISH_INTELLIGIBILITY : undefined;
}

/** Identifies the fit texts; the calibration records it, so that a changed text cannot go unnoticed. */
export function fitTextDigest(): string {
  return createHash('sha256').update(`${ENGLISH}\n${NUMBERS}`).digest('hex').slice(0, 16);
}
