// Kokoro's English voices were trained on the phonemes of its G2P (misaki): its lexicon first, and for other
// words espeak-ng's IPA rewritten into misaki's symbols (one letter per diphthong and affricate, "ɚ" as "əɹ",
// American English without length marks, flaps and glottal stops as "T" and "t"). Without the lexicon, that
// rewrite is what brings espeak's IPA closest to what the voices heard: on 229 English sentences it leaves
// 18 % of the words the lexicon knows written otherwise, against 65 % for espeak's IPA as it is.
import type { PhonemeRewrite } from '../espeak/phonemize.ts';

/** Where one espeak phoneme is written with several letters, misaki reads them tied ("a^ɪ"). */
export const TIE = '^';

/**
 * Ties the letters of one phoneme as espeak-ng does when asked to (not before a length mark, a modifier letter
 * or a combining diacritic), so the rewrite below tells the diphthong "aɪ" from an "a" followed by an "ɪ".
 */
export const tiePhoneme: PhonemeRewrite = (_name, ipa) => {
  const stress = /^[ˈˌ]*/u.exec(ipa)?.[0] ?? '';
  const chars = [...ipa.slice(stress.length)];
  let out = stress;
  chars.forEach((c, i) => {
    const code = c.codePointAt(0) ?? 0;
    if (i > 0 && (code < 0x2b0 || code > 0x36f)) out += TIE;
    out += c;
  });
  return out;
};

/** misaki's espeak-to-misaki replacements, applied longest first. */
const REPLACEMENTS: readonly (readonly [string, string])[] = (
  [
    ['ʔˌn\u0329', 'ʔn'],
    ['ʔn\u0329', 'ʔn'],
    ['a^ɪ', 'I'],
    ['a^ʊ', 'W'],
    ['d^ʒ', 'ʤ'],
    ['e^ɪ', 'A'],
    ['e', 'A'],
    ['t^ʃ', 'ʧ'],
    ['ɔ^ɪ', 'Y'],
    ['ə^l', 'ᵊl'],
    ['ʲo', 'jo'],
    ['ʲə', 'jə'],
    ['ʲ', ''],
    ['ɚ', 'əɹ'],
    ['r', 'ɹ'],
    ['x', 'k'],
    ['ç', 'k'],
    ['ɐ', 'ə'],
    ['ɬ', 'l'],
    ['\u0303', ''],
  ] as const
)
  .map(([from, to]) => [from.replaceAll('^', TIE), to] as const)
  .sort((a, b) => b[0].length - a[0].length);

/** One word of espeak's IPA (its phonemes tied by tiePhoneme) in misaki's symbols. */
export function misakiWord(tied: string, british: boolean): string {
  let w = tied;
  for (const [from, to] of REPLACEMENTS) w = w.replaceAll(from, to);
  // A syllabic consonant: a reduced vowel before it.
  w = w.replace(/(\S)\u0329/gu, 'ᵊ$1').replaceAll('\u0329', '');
  if (british) {
    w = w.replaceAll(`e${TIE}ə`, 'ɛː').replaceAll('iə', 'ɪə').replaceAll(`ə${TIE}ʊ`, 'Q');
  } else {
    w = w.replaceAll(`o${TIE}ʊ`, 'O').replaceAll('ɜːɹ', 'ɜɹ').replaceAll('ɜː', 'ɜɹ').replaceAll('ɪə', 'iə').replaceAll('ː', '');
  }
  w = w.replaceAll('o', 'ɔ').replaceAll('ɾ', 'T').replaceAll('ʔ', 't');
  return w.replaceAll(TIE, '');
}
