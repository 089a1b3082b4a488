import type { Phonemes } from '../espeak/phonemize.ts';
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

/** Kokoro's tokens for espeak's phonemes: words joined by spaces, the final mark kept, unknown symbols skipped, capped. */
export function kokoroTokens(phonemes: Phonemes, finalMark: string | undefined, english: boolean): KokoroTokens {
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
    for (const [from, to] of AFFRICATES) w = w.replaceAll(from, to);
    // Kokoro's English phonemes write the r sound as ɹ (espeak's en voices sometimes give r).
    if (english) w = w.replaceAll('r', 'ɹ');
    for (const ch of w) put(ch);
  });
  if (finalMark) put(finalMark);
  return { tokens, wordStarts: wordStarts.filter((s) => s < KOKORO_MAX_TOKENS) };
}
