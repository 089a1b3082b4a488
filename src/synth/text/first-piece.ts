// The first audio of a response cannot leave before the engine has rendered the first piece, and the
// engines render a piece whole (espeak's wasm build included: its callbacks all run inside one call). So
// the first sentence is cut once, early: at a clause boundary if one comes soon, else before a function
// word where a phrase usually starts, else after a few words. Only the first piece: later ones are
// rendered while the first plays, and whole sentences keep the engines' sentence prosody. When others on
// the thread wait for their first audio behind it, the first piece is cut down to a word (shortestHead).
import type { MappedSentence } from './index.ts';
import { sliceMapped } from './mapped.ts';
import { CLAUSE_END, startsPhrase } from './phrases.ts';

/** A first piece is cut only from a sentence of at least this many words. */
const MIN_WORDS_TO_CUT = 5;
/** The words the first piece may have (fewer render faster; more keep a phrase whole). */
const MIN_HEAD_WORDS = 2;
const MAX_HEAD_WORDS = 4;
/** Without a better place, the cut comes after this many words. */
const DEFAULT_HEAD_WORDS = 3;

/** How many words the first piece gets, and what follows it; undefined when the sentence stays whole. */
function headOf(words: readonly string[]): { words: number; break: MappedSentence['break'] } | undefined {
  if (words.length < MIN_WORDS_TO_CUT) return undefined;
  // "Hello, ..." makes a fine first piece of one word.
  for (let n = 1; n <= MAX_HEAD_WORDS + 1 && n < words.length; n++) {
    if (CLAUSE_END.test(words[n - 1])) return { words: n, break: 'clause' };
  }
  for (let n = MAX_HEAD_WORDS; n >= MIN_HEAD_WORDS; n--) {
    if (startsPhrase(words[n])) return { words: n, break: 'none' };
  }
  return { words: DEFAULT_HEAD_WORDS, break: 'none' };
}

/**
 * The first piece cut down to its first word (after any words a phrase starts with: "The old | lighthouse"),
 * for a thread where others wait for their first audio behind it: each word less is ~10 ms of flite sooner
 * for all of them. Whole when it has only that much.
 */
export function shortestHead(piece: MappedSentence): MappedSentence[] {
  const words = [...piece.text.matchAll(/\S+/g)];
  let n = 1;
  while (n < words.length && startsPhrase(words[n - 1][0]) && !CLAUSE_END.test(words[n - 1][0])) n++;
  if (n >= words.length) return [piece];
  const last = words[n - 1];
  const headEnd = (last.index ?? 0) + last[0].length;
  const head = sliceMapped(piece.mapped, 0, headEnd);
  const tail = sliceMapped(piece.mapped, words[n].index ?? headEnd);
  return [
    { text: head.text, mapped: head, break: CLAUSE_END.test(last[0]) ? 'clause' : 'none' },
    { text: tail.text, mapped: tail, break: piece.break },
  ];
}

/** Splits the first piece in two for a quick start; other pieces are returned as they are. */
export function cutFirstPiece(pieces: readonly MappedSentence[]): MappedSentence[] {
  if (pieces.length === 0) return [];
  const [first, ...rest] = pieces;
  const words = [...first.text.matchAll(/\S+/g)];
  const head = headOf(words.map((m) => m[0]));
  if (!head) return [...pieces];
  const last = words[head.words - 1];
  const headEnd = (last.index ?? 0) + last[0].length;
  const tailStart = words[head.words].index ?? headEnd;
  const piece = (start: number, end: number, brk: MappedSentence['break']): MappedSentence => {
    const mapped = sliceMapped(first.mapped, start, end);
    return { text: mapped.text, break: brk, mapped };
  };
  return [piece(0, headEnd, head.break), piece(tailStart, first.text.length, first.break), ...rest];
}
