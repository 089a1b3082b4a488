// Sentences out of text that arrives piece by piece (an LLM's tokens): each sentence is handed out as soon as
// it is complete, by the same splitter that cuts whole texts, so streamed and whole text are spoken alike.
import { DEFAULT_FIRST_MAX_CHARS, DEFAULT_MAX_CHARS, splitSentences, type Break } from './split.ts';

export interface ReadySentence {
  text: string;
  /** Where the sentence starts in the text received since the start (or the last `reset`), in UTF-16 units. */
  offset: number;
  /** Where it ends there (exclusive). */
  end: number;
  /** What follows it: the pause before the next sentence. */
  break: Break;
}

const SPEAKABLE = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/**
 * Finds `piece` (a sentence the splitter returned: trimmed, line breaks turned into spaces) in `source` from
 * `from` on; a space in the piece matches any run of white space. Null when it is not there as expected.
 */
export function locate(source: string, piece: string, from: number): { start: number; end: number } | null {
  let i = from;
  while (i < source.length && SPACE.test(source[i])) i++;
  const start = i;
  for (let j = 0; j < piece.length; ) {
    if (SPACE.test(piece[j])) {
      if (i >= source.length || !SPACE.test(source[i])) return null;
      while (j < piece.length && SPACE.test(piece[j])) j++;
      while (i < source.length && SPACE.test(source[i])) i++;
    } else {
      if (source[i] !== piece[j]) return null;
      i++;
      j++;
    }
  }
  return { start, end: i };
}

/**
 * Text received so far and not yet handed out. A sentence is complete once text after it has begun: the
 * splitter needs the next character to tell "Dr. Smith" or "3.5" from a sentence end (and a lower-case word
 * after a period from a new sentence). `flush` hands out the rest, complete or not.
 */
export class SentenceStream {
  private text = '';
  /** Offset of `text` in everything received since the last reset. */
  private base = 0;
  private handedOut = false;

  /** Characters received and not handed out yet. */
  get pendingChars(): number {
    return this.text.length;
  }

  /** Appends a piece and returns the sentences it completed. */
  push(piece: string): ReadySentence[] {
    this.text += piece;
    return this.take(false);
  }

  /** Everything left, as sentences, complete or not; the next piece starts a new text at offset 0. */
  flush(): ReadySentence[] {
    const out = this.take(true);
    this.reset();
    return out;
  }

  reset(): void {
    this.text = '';
    this.base = 0;
    this.handedOut = false;
  }

  private take(all: boolean): ReadySentence[] {
    // The first sentence of a text is cut shorter (as for a whole text), so its audio starts sooner.
    const pieces = splitSentences(this.text, { firstMaxChars: this.handedOut ? DEFAULT_MAX_CHARS : DEFAULT_FIRST_MAX_CHARS });
    const complete = all ? pieces : pieces.slice(0, -1);
    const out: ReadySentence[] = [];
    let cursor = 0;
    for (const piece of complete) {
      const at = locate(this.text, piece.text, cursor);
      // Not found as expected (should not happen): keep the text until a flush rather than guess.
      if (!at) break;
      cursor = at.end;
      if (SPEAKABLE.test(piece.text)) out.push({ text: piece.text, offset: this.base + at.start, end: this.base + at.end, break: piece.break });
    }
    if (all) cursor = this.text.length;
    if (cursor > 0) {
      this.text = this.text.slice(cursor);
      this.base += cursor;
      this.handedOut ||= out.length > 0;
    }
    return out;
  }
}
