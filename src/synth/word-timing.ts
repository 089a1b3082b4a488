// Engine word events -> WordTiming on the output timeline, pointing back at the request text. Words an
// engine reports for one written token ("five", "dollars", "and", "twenty", "cents" for "$5.20") share its
// source span and become one timing, named by what the user wrote.
import type { EngineWord } from './engine.ts';
import type { WordTiming } from './speech.ts';
import { spanOf, type MappedText } from './text/mapped.ts';

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export interface SentencePlacement {
  /** Seconds on the output timeline where the kept audio of the sentence starts. */
  at: number;
  /** Seconds cut from the start of the engine's audio. */
  trimmed: number;
  /** Seconds of kept audio. */
  duration: number;
}

/**
 * The source span of the engine word at [offset, offset + length) of the mapped text, from its letters and
 * digits only: punctuation that touches a word ("fifth." before "</say-as>.") belongs to no word.
 */
function wordSpan(mapped: MappedText, offset: number, length: number): { offset: number; length: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = offset; i < Math.min(mapped.text.length, offset + length); i++) {
    if (!/[\p{L}\p{N}]/u.test(mapped.text[i])) continue;
    lo = Math.min(lo, mapped.starts[i]);
    hi = Math.max(hi, mapped.ends[i]);
  }
  return lo <= hi ? { offset: lo, length: hi - lo } : spanOf(mapped, offset, offset + Math.max(1, length));
}

/** Timings of a sentence's words; `mapped` is the text given to the engine with its source spans. */
export function timeWords(words: readonly EngineWord[], mapped: MappedText, source: string, place: SentencePlacement): WordTiming[] {
  const clamp = (t: number): number => Math.min(place.duration, Math.max(0, t - place.trimmed));
  const out: WordTiming[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const span = wordSpan(mapped, w.offset, w.length);
    const start = clamp(w.time);
    const nextStart = i + 1 < words.length ? clamp(words[i + 1].time) : place.duration;
    const end = Math.max(start, w.end !== undefined ? Math.min(clamp(w.end), Math.max(start, nextStart)) : nextStart);
    const prev = out[out.length - 1];
    if (prev && span.offset < prev.offset + prev.length && span.offset + span.length > prev.offset) {
      // Same written token: widen the previous timing.
      const lo = Math.min(prev.offset, span.offset);
      const hi = Math.max(prev.offset + prev.length, span.offset + span.length);
      prev.offset = lo;
      prev.length = hi - lo;
      prev.word = source.slice(lo, hi);
      prev.end = round3(place.at + end);
      continue;
    }
    out.push({
      word: source.slice(span.offset, span.offset + span.length),
      start: round3(place.at + start),
      end: round3(place.at + end),
      offset: span.offset,
      length: span.length,
    });
  }
  return out;
}
