// SSML <phoneme> strings (IPA or X-SAMPA) as espeak-ng phoneme mnemonics, which espeak reads between [[ and ]]
// in its text input. Piper and Kokoro phonemize through espeak-ng too, so the same [[...]] reaches their
// phoneme ids as espeak's own IPA for those sounds. The tables cover the sounds of English and the common
// European vowels and consonants; a symbol outside them is passed through (espeak then ignores it).

import type { PhonemeAlphabet } from '../../schemas/lexicons.ts';

/** Symbol pairs (from, to), longest symbols first. */
type SymbolTable = readonly (readonly [string, string])[];

// X-SAMPA -> IPA, longest symbols first.
const XSAMPA: SymbolTable = [
  ['r\\`', 'ɻ'],
  ['@`', 'ɚ'],
  ['3`', 'ɝ'],
  ['r\\', 'ɹ'],
  ['tS', 'tʃ'],
  ['dZ', 'dʒ'],
  ['h\\', 'ɦ'],
  ['j\\', 'ʝ'],
  ['"', 'ˈ'],
  ['%', 'ˌ'],
  [':', 'ː'],
  ['A', 'ɑ'],
  ['{', 'æ'],
  ['V', 'ʌ'],
  ['O', 'ɔ'],
  ['@', 'ə'],
  ['3', 'ɜ'],
  ['E', 'ɛ'],
  ['I', 'ɪ'],
  ['U', 'ʊ'],
  ['Q', 'ɒ'],
  ['6', 'ɐ'],
  ['2', 'ø'],
  ['9', 'œ'],
  ['y', 'y'],
  ['Y', 'ʏ'],
  ['T', 'θ'],
  ['D', 'ð'],
  ['S', 'ʃ'],
  ['Z', 'ʒ'],
  ['N', 'ŋ'],
  ['J', 'ɲ'],
  ['L', 'ʎ'],
  ['R', 'ʁ'],
  ['C', 'ç'],
  ['x', 'x'],
  ['4', 'ɾ'],
  ['?', 'ʔ'],
  ['g', 'ɡ'],
  ['B', 'β'],
  ['G', 'ɣ'],
  ['.', '.'],
];

/** Rewrites `s` symbol by symbol through `table` (longest first); a character no symbol starts with goes through `other`. */
function transliterate(s: string, table: SymbolTable, other: (c: string) => string): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    const hit = table.find(([x]) => s.startsWith(x, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    } else {
      out += other(s[i]);
      i++;
    }
  }
  return out;
}

/** X-SAMPA to IPA. */
export function xsampaToIpa(s: string): string {
  return transliterate(s, XSAMPA, (c) => c);
}

// IPA -> espeak-ng mnemonics (English phoneme table names), longest symbols first.
const IPA: SymbolTable = [
  ['tʃ', 'tS'],
  ['t͡ʃ', 'tS'],
  ['dʒ', 'dZ'],
  ['d͡ʒ', 'dZ'],
  ['aɪ', 'aI'],
  ['aʊ', 'aU'],
  ['eɪ', 'eI'],
  ['ɔɪ', 'OI'],
  ['oʊ', 'oU'],
  ['əʊ', '@U'],
  ['ɪə', 'i@'],
  ['ɛə', 'e@'],
  ['ʊə', 'U@'],
  ['ɑː', 'A:'],
  ['ɔː', 'O:'],
  ['ɜː', '3:'],
  ['iː', 'i:'],
  ['uː', 'u:'],
  ['ɝ', '3:'],
  ['ɚ', '3'],
  ['ɑ', 'A'],
  ['æ', 'a'],
  ['ʌ', 'V'],
  ['ɔ', 'O'],
  ['ə', '@'],
  ['ɜ', '3'],
  ['ɛ', 'E'],
  ['ɪ', 'I'],
  ['ʊ', 'U'],
  ['ɒ', '0'],
  ['ɐ', 'a#'],
  ['ø', 'Y'],
  ['œ', 'W'],
  ['ʏ', 'y'],
  ['θ', 'T'],
  ['ð', 'D'],
  ['ʃ', 'S'],
  ['ʒ', 'Z'],
  ['ŋ', 'N'],
  ['ɹ', 'r'],
  ['ɾ', 't#'],
  ['ʁ', 'R'],
  ['ɲ', 'n^'],
  ['ʎ', 'l^'],
  ['ç', 'C'],
  ['ʔ', '?'],
  ['ɡ', 'g'],
  ['ɦ', 'h'],
  ['β', 'B'],
  ['ɣ', 'Q'],
  ['ˈ', "'"],
  ['ˌ', ','],
  ['ː', ':'],
  ['.', ''],
  ['‿', ''],
];

/** IPA to espeak-ng phoneme mnemonics. */
export function ipaToEspeak(s: string): string {
  // Plain Latin letters are the same in both; anything else (tones, diacritics) is dropped.
  return transliterate(s.normalize('NFC'), IPA, (c) => (/[a-z ]/.test(c) ? c : '')).trim();
}

/** The espeak text input that says `ph` (`[[...]]`), or undefined when nothing of it is pronounceable. */
export function espeakPhonemeInput(ph: string, alphabet: PhonemeAlphabet): string | undefined {
  const mnemonics = ipaToEspeak(alphabet === 'x-sampa' ? xsampaToIpa(ph) : ph).replace(/[[\]]/g, '');
  return /[a-zA-Z@0-9]/.test(mnemonics) ? `[[${mnemonics}]]` : undefined;
}
