// Character timings (ElevenLabs' `alignment`) derived from word timings: our engines time words, not letters.
import type { WordTiming } from '../schemas/speech.ts';

/** ElevenLabs' shape: one entry per character of the text, in order, times in seconds from the start of the audio. */
export interface CharacterAlignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export function emptyAlignment(): CharacterAlignment {
  return { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
}

export function concatAlignments(parts: readonly CharacterAlignment[]): CharacterAlignment {
  const out = emptyAlignment();
  for (const p of parts) {
    out.characters.push(...p.characters);
    out.character_start_times_seconds.push(...p.character_start_times_seconds);
    out.character_end_times_seconds.push(...p.character_end_times_seconds);
  }
  return out;
}

/**
 * Walks the text once, as word timings arrive (streaming) or all at once. Each word's characters share its span
 * evenly; the characters between two words (spaces, punctuation) share the gap between them, as do those before
 * the first word (from 0) and after the last (until the end of the audio). Times never go backwards, so the result
 * is monotonic even when an engine's word times overlap.
 */
export class CharacterAligner {
  /** The next UTF-16 index of the text not aligned yet. */
  private pos = 0;
  /** Where the last aligned character ended. */
  private time = 0;

  constructor(private readonly text: string) {}

  /** Aligns the text up to the end of the last of these words (given in order, each once). */
  words(words: readonly WordTiming[]): CharacterAlignment {
    const out = emptyAlignment();
    for (const w of words) {
      const span = this.spanOf(w);
      if (!span) {
        // A word not found in the text (a spoken expansion): its time still passes.
        this.time = Math.max(this.time, w.end);
        continue;
      }
      const start = Math.max(this.time, w.start);
      this.spread(out, this.pos, span.start, this.time, start);
      this.spread(out, span.start, span.end, start, Math.max(start, w.end));
    }
    return out;
  }

  /** The rest of the text, after the last word, spread until `duration` (the length of the audio). */
  finish(duration: number): CharacterAlignment {
    const out = emptyAlignment();
    this.spread(out, this.pos, this.text.length, this.time, Math.max(this.time, duration));
    return out;
  }

  /**
   * Where the word sits: its offset/length into the text when they fit what is left of it, else found by its
   * spelling from where the last word ended; null when it is not there.
   */
  private spanOf(w: WordTiming): { start: number; end: number } | null {
    const { offset, length } = w;
    if (Number.isInteger(offset) && Number.isInteger(length) && length > 0 && offset + length <= this.text.length) {
      const end = offset + length;
      if (end <= this.pos) return null;
      return { start: Math.max(offset, this.pos), end };
    }
    if (w.word === '') return null;
    const at = this.text.toLowerCase().indexOf(w.word.toLowerCase(), this.pos);
    return at < 0 ? null : { start: at, end: at + w.word.length };
  }

  /** Gives the characters in [from, to) of the text equal shares of [t0, t1], and moves past them. */
  private spread(out: CharacterAlignment, from: number, to: number, t0: number, t1: number): void {
    if (to <= from) return;
    // Characters as people count them: a surrogate pair (an emoji, a rare CJK character) is one.
    const chars = Array.from(this.text.slice(from, to));
    const step = (t1 - t0) / chars.length;
    chars.forEach((c, i) => {
      out.characters.push(c);
      out.character_start_times_seconds.push(round3(t0 + i * step));
      out.character_end_times_seconds.push(round3(t0 + (i + 1) * step));
    });
    this.pos = to;
    this.time = t1;
  }
}

/** The alignment of a whole text from all its word timings and the audio's length. */
export function alignCharacters(text: string, words: readonly WordTiming[], duration: number): CharacterAlignment {
  const aligner = new CharacterAligner(text);
  return concatAlignments([aligner.words(words), aligner.finish(duration)]);
}
