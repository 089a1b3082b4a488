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
  const words = wordsOf(piece);
  let n = 1;
  while (n < words.length && startsPhrase(words[n - 1][0]) && !CLAUSE_END.test(words[n - 1][0])) n++;
  if (n >= words.length) return [piece];
  return splitAfterWords(piece, words, n, CLAUSE_END.test(words[n - 1][0]) ? 'clause' : 'none');
}

/** Splits the first piece in two for a quick start; other pieces are returned as they are. */
export function cutFirstPiece(pieces: readonly MappedSentence[]): MappedSentence[] {
  if (pieces.length === 0) return [];
  const [first, ...rest] = pieces;
  const words = wordsOf(first);
  const head = headOf(words.map((m) => m[0]));
  if (!head) return [...pieces];
  return [...splitAfterWords(first, words, head.words, head.break), ...rest];
}

const wordsOf = (sentence: MappedSentence): RegExpExecArray[] => [...sentence.text.matchAll(/\S+/g)];

/** `sentence` split after its first `n` words (of `words`): the head ends with the last of them, the tail starts at the next. */
function splitAfterWords(
  sentence: MappedSentence,
  words: RegExpExecArray[],
  n: number,
  headBreak: MappedSentence['break'],
): [MappedSentence, MappedSentence] {
  const last = words[n - 1];
  const headEnd = last.index + last[0].length;
  const head = sliceMapped(sentence.mapped, 0, headEnd);
  const tail = sliceMapped(sentence.mapped, words[n].index);
  return [
    { text: head.text, mapped: head, break: headBreak },
    { text: tail.text, mapped: tail, break: sentence.break },
  ];
}
