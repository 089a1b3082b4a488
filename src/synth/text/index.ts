import { normalizeEnglish } from './normalize-en.ts';
import type { Sentence, SplitOptions } from './split.ts';
import { splitSentences } from './split.ts';

export type { Break, Sentence, SplitOptions } from './split.ts';
export { normalizeEnglish } from './normalize-en.ts';
export { splitSentences } from './split.ts';

export interface PrepareOptions extends SplitOptions {
  /** English voices get numbers, money, dates and abbreviations spelled out; espeak reads other languages itself. */
  english: boolean;
}

/** Normalizes (English only) and splits text into the pieces the engines render one at a time. */
export function prepareText(text: string, options: PrepareOptions): Sentence[] {
  const normalized = options.english ? normalizeEnglishKeepingParagraphs(text) : text;
  return splitSentences(normalized, options).filter((s) => /[\p{L}\p{N}]/u.test(s.text));
}

// Normalization collapses spaces; paragraphs are normalized one by one so blank lines survive.
function normalizeEnglishKeepingParagraphs(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.split('\n').map(normalizeEnglish).join('\n'))
    .join('\n\n');
}
