import type { Phonemes } from '../espeak/phonemize.ts';

export const PIPER_BOS = '^';
export const PIPER_EOS = '$';
export const PIPER_PAD = '_';

export interface PiperIds {
  ids: number[];
  /** Index in `ids` where each spoken word starts (clause marks excluded). */
  wordStarts: number[];
}

/**
 * Piper's id sequence: the BOS ids and the pad ids, then each phoneme's ids followed by the pad ids, then EOS. Phonemes are
 * the code points of espeak's IPA (decomposed, as Piper splits them); words are separated by " ", clause
 * breaks by ",", and the sentence's own final mark (. ? !) ends it. Phonemes the model does not know are
 * skipped, as Piper does.
 */
export function piperIds(phonemes: Phonemes, finalMark: string | undefined, map: Readonly<Record<string, number[]>>): PiperIds {
  const pad = map[PIPER_PAD] ?? [];
  // piper-phonemize, which the voices were trained with, intersperses the pad after BOS too.
  const ids: number[] = [...(map[PIPER_BOS] ?? []), ...pad];
  const wordStarts: number[] = [];
  const put = (phoneme: string): void => {
    const mapped = map[phoneme];
    if (!mapped) return;
    ids.push(...mapped, ...pad);
  };
  phonemes.words.forEach((word, i) => {
    if (word === ',') {
      put(',');
      return;
    }
    if (i > 0) put(' ');
    wordStarts.push(ids.length);
    for (const p of word.normalize('NFD')) put(p);
  });
  if (finalMark) put(finalMark);
  ids.push(...(map[PIPER_EOS] ?? []));
  return { ids, wordStarts };
}

/** The sentence-ending mark Piper keeps (espeak drops punctuation from its phonemes). */
export function finalMarkOf(text: string): string | undefined {
  const m = /([.!?])["')\]]*\s*$/.exec(text);
  return m?.[1];
}
