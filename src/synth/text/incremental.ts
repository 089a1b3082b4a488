// Sentences out of text that arrives piece by piece (an LLM's tokens): each sentence is handed out as soon as
// it is complete, by the same splitter that cuts whole texts, so streamed and whole text are spoken alike.
import { isAbbreviation } from './en-abbreviations.ts';
import { unitOf } from './en-units.ts';
import { CLOSERS, neverEndsAfter, OPENERS, splitSentences, type Break } from './split.ts';

export interface ReadySentence {
  text: string;
  /** Where the sentence starts in the text received since the start (or the last `reset`), in UTF-16 units. */
  offset: number;
  /** Where it ends there (exclusive). */
  end: number;
  /** What follows it: the pause before the next sentence. */
  break: Break;
  /** The pause before it: none for the first sentence since the start (or the last flush). */
  pauseBefore?: Break;
}

const SPEAKABLE = /[\p{L}\p{N}]/u;
const SPACE = /\s/;
const TRAILING_CLOSERS = new RegExp(`(?:${CLOSERS.source})+$`, 'u');
const PARAGRAPH = /\n\s*\n/;

/**
 * Whether `text` plainly ends a sentence, so that nothing after it can make it continue: it ends in "!" or "?"
 * (closing quotes and brackets after it aside), or in one period after a word that cannot be an abbreviation
 * ("Dr.", "approx.", "e.g."), an initial ("J."), a number ("3." may become "3.5") or a unit after one ("5 ft.
 * tall"). An ellipsis may go on too ("Wait... what"). Anything else waits for what follows, as whole text does.
 */
export function endsPlainly(text: string): boolean {
  const t = text.trimEnd().replace(TRAILING_CLOSERS, '');
  const terminals = /[.!?…]+$/.exec(t)?.[0] ?? '';
  if (terminals === '') return false;
  if (terminals !== '.') return !/[.…]/.test(terminals);
  const words = t.slice(0, -1).split(/\s+/);
  const word = (words.pop() ?? '').replace(OPENERS, '').replace(TRAILING_CLOSERS, '');
  if (!/\p{L}/u.test(word) || /\p{N}$/u.test(word)) return false;
  // "U.S.", "example.com.", single letters ("a." in a list), and the abbreviations read with their period.
  if (word.includes('.') || /^\p{L}$/u.test(word) || neverEndsAfter(word) || isAbbreviation(word)) return false;
  const before = words.pop() ?? '';
  // The units table leaves "in" out (a common word); after a number it is the inch that "12 in. long" goes on with.
  return !(/\p{N}$/u.test(before) && (unitOf(word) !== undefined || word === 'in'));
}

/**
 * Finds `piece` (a sentence the splitter returned: trimmed, line breaks turned into spaces) in `source` from
 * `from` on; a space in the piece matches any run of white space. Null when it is not there as expected.
 */
export function locate(source: string, piece: string, from: number): { start: number; end: number } | null {
  let i = from;
  while (i < source.length && SPACE.test(source[i])) i++;
  const start = i;
  for (let j = 0; j < piece.length;) {
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
 * after a period from a new sentence). A sentence that ends plainly (endsPlainly) needs none and goes at once.
 * `flush` hands out the rest, complete or not.
 */
export class SentenceStream {
  private text = '';
  /** Offset of `text` in everything received since the last reset. */
  private base = 0;
  /** The break after the last sentence handed out since the last flush: the pause before the next. */
  private lastBreak: Break | undefined;
  /** That sentence went before anything followed it, so its break is known only once the next one comes. */
  private endedEarly = false;

  /** Characters received and not handed out yet. */
  get pendingChars(): number {
    return this.text.length;
  }

  /** Appends a piece and returns the sentences it completed. */
  push(piece: string): ReadySentence[] {
    this.text += piece;
    return this.take(false);
  }

  /** Everything left, as sentences, complete or not; the next piece starts a new text at offset 0, with no pause before it. */
  flush(): ReadySentence[] {
    const out = this.take(true);
    this.reset();
    this.lastBreak = undefined;
    return out;
  }

  /** Drops the text not handed out; the next piece starts a new text at offset 0, after the pause already due. */
  reset(): void {
    this.text = '';
    this.base = 0;
    this.endedEarly = false;
  }

  private take(all: boolean): ReadySentence[] {
    const pieces = splitSentences(this.text);
    const early = !all && endsPlainly(this.text);
    const complete = all || early ? pieces : pieces.slice(0, -1);
    const out: ReadySentence[] = [];
    let cursor = 0;
    for (const piece of complete) {
      const at = locate(this.text, piece.text, cursor);
      // Not found as expected (should not happen): keep the text until a flush rather than guess.
      if (!at) break;
      if (SPEAKABLE.test(piece.text)) {
        let pauseBefore = this.lastBreak;
        // A sentence that went early was taken for one line's end; a blank line after it makes it a paragraph's.
        if (this.endedEarly && pauseBefore === 'sentence' && PARAGRAPH.test(this.text.slice(cursor, at.start))) pauseBefore = 'paragraph';
        out.push({
          text: piece.text,
          offset: this.base + at.start,
          end: this.base + at.end,
          break: piece.break,
          ...(pauseBefore ? { pauseBefore } : {}),
        });
        this.lastBreak = piece.break;
        this.endedEarly = false;
      }
      cursor = at.end;
    }
    if (early && out.length > 0 && cursor >= this.text.trimEnd().length) this.endedEarly = true;
    if (all) cursor = this.text.length;
    if (cursor > 0) {
      this.text = this.text.slice(cursor);
      this.base += cursor;
    }
    return out;
  }
}
