import type { Phonemes } from '../espeak/phonemize.ts';
import { misakiWord } from './misaki-ipa.ts';
import { KOKORO_MAX_TOKENS, KOKORO_VOCAB } from './vocab.ts';

export interface KokoroTokens {
  /** Phoneme tokens without the pads (the style row is chosen by their count). */
  tokens: number[];
  wordStarts: number[];
}

// espeak writes affricates as two letters where Kokoro's training phonemes use one symbol each.
const AFFRICATES: readonly [string, string][] = [
  ['dʒ', 'ʤ'],
  ['tʃ', 'ʧ'],
  ['ts', 'ʦ'],
  ['dz', 'ʣ'],
];

/**
 * Kokoro's tokens for espeak's phonemes: words joined by spaces, the final mark kept, unknown symbols skipped,
 * capped. English (`english` given) comes tied (misaki-ipa.ts tiePhoneme) and is written in misaki's symbols.
 */
export function kokoroTokens(phonemes: Phonemes, finalMark: string | undefined, english?: { british: boolean }): KokoroTokens {
  const tokens: number[] = [];
  const wordStarts: number[] = [];
  const put = (ch: string): void => {
    const id = KOKORO_VOCAB.get(ch);
    if (id !== undefined && tokens.length < KOKORO_MAX_TOKENS) tokens.push(id);
  };
  phonemes.words.forEach((word, i) => {
    if (word === ',') {
      put(',');
      return;
    }
    if (i > 0) put(' ');
    wordStarts.push(tokens.length);
    let w = word;
    if (english) w = misakiWord(word, english.british);
    else for (const [from, to] of AFFRICATES) w = w.replaceAll(from, to);
    for (const ch of w) put(ch);
  });
  if (finalMark) put(finalMark);
  return { tokens, wordStarts: wordStarts.filter((s) => s < KOKORO_MAX_TOKENS) };
}
