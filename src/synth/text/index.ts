import { concatMapped, locate, replaceMapped, sliceMapped, verbatim, type MappedText } from './mapped.ts';
import { normalizeEnglishMapped } from './normalize-en.ts';
import type { Sentence, SplitOptions } from './split.ts';
import { splitSentences } from './split.ts';

export type { Break, Sentence, SplitOptions } from './split.ts';
export { normalizeEnglish, normalizeEnglishMapped } from './normalize-en.ts';
export { splitSentences } from './split.ts';

export interface PrepareOptions extends SplitOptions {
  /** English voices get numbers, money, dates and abbreviations spelled out; espeak reads other languages itself. */
  english: boolean;
}

/** A sentence and the source span of each of its characters. */
export interface MappedSentence extends Sentence {
  mapped: MappedText;
}

/** Normalizes (English only) and splits text into the pieces the engines render one at a time. */
export function prepareText(text: string, options: PrepareOptions): Sentence[] {
  return prepareMapped(verbatim(text), options).map(({ text: t, break: b }) => ({ text: t, break: b }));
}

/** prepareText for text that knows where it came from: each sentence keeps its characters' source spans. */
export function prepareMapped(text: MappedText, options: PrepareOptions): MappedSentence[] {
  const normalized = options.english ? normalizeEnglishKeepingParagraphs(text) : text;
  const out: MappedSentence[] = [];
  let cursor = 0;
  for (const s of splitSentences(normalized.text, options)) {
    const at = locate(normalized, s.text, cursor);
    // Splitting only trims and joins white space, so every piece is found; the fallback keeps timings sane.
    const mapped = at
      ? sliceMapped(normalized, at.start, at.end)
      : sliceMapped(normalized, cursor, Math.min(normalized.text.length, cursor + s.text.length));
    if (at) cursor = at.end;
    if (/[\p{L}\p{N}]/u.test(s.text))
      out.push({ ...s, mapped: { text: s.text, starts: fit(mapped.starts, s.text.length), ends: fit(mapped.ends, s.text.length) } });
  }
  return out;
}

// The located slice may differ in length from the piece where white space runs were joined; the spans are
// then taken proportionally, which only blurs spaces.
function fit(xs: number[], n: number): number[] {
  if (xs.length === n || xs.length === 0) return xs.length === n ? xs : new Array<number>(n).fill(0);
  return Array.from({ length: n }, (_, i) => xs[Math.min(xs.length - 1, Math.floor((i * xs.length) / n))]);
}

// Normalization collapses spaces; paragraphs and lines are normalized one by one so line breaks survive.
function normalizeEnglishKeepingParagraphs(text: MappedText): MappedText {
  const t = replaceMapped(text, /\r\n?/g, () => '\n');
  const parts: MappedText[] = [];
  let last = 0;
  for (const m of t.text.matchAll(/\n/g)) {
    const i = m.index ?? 0;
    parts.push(normalizeEnglishMapped(sliceMapped(t, last, i)), sliceMapped(t, i, i + 1));
    last = i + 1;
  }
  parts.push(normalizeEnglishMapped(sliceMapped(t, last)));
  return concatMapped(parts);
}
