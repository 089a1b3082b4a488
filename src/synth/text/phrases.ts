// Where a sentence may be cut into pieces the engines render separately: after a word that ends a clause,
// or before a word a phrase usually starts with. Used to cut a long reading's sentences into clause pieces.

/** A word that ends a clause: a comma, semicolon, colon or dash after it. */
export const CLAUSE_END = /[,;:，、；：—–]$/;

// Words a phrase often starts with (English; other languages get the clause boundary or the word count).
const PHRASE_STARTS = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'because',
  'before',
  'but',
  'by',
  'for',
  'from',
  'if',
  'in',
  'into',
  'of',
  'on',
  'or',
  'so',
  'that',
  'the',
  'then',
  'this',
  'to',
  'when',
  'where',
  'which',
  'while',
  'who',
  'with',
  'will',
  'would',
  'is',
  'was',
  'are',
  'were',
  'has',
  'have',
  'had',
  'can',
  'could',
  'should',
  'after',
  'until',
  'about',
  'over',
  'under',
]);

/** Whether `word` (as written, leading punctuation and all) starts a phrase. */
export function startsPhrase(word: string): boolean {
  return PHRASE_STARTS.has(bare(word));
}

// Words that open a clause inside a sentence (English): a long clause is cut before one of these only, where
// a speaker could breathe, not inside a noun phrase ("a box | of electronics").
const CLAUSE_STARTS = new Set([
  'and',
  'but',
  'or',
  'nor',
  'yet',
  'so',
  'because',
  'when',
  'whenever',
  'where',
  'while',
  'which',
  'who',
  'whom',
  'whose',
  'that',
  'though',
  'although',
  'until',
  'unless',
  'before',
  'after',
  'if',
  'since',
]);

/** Whether a cut may go between `before` and `word`: `word` opens a clause and `before` does not lead into it. */
export function opensClause(before: string, word: string): boolean {
  return CLAUSE_STARTS.has(bare(word)) && !startsPhrase(before);
}

/** A word as the lists hold it: lower case, without the punctuation in front ("(When" -> "when"). */
const bare = (word: string): string => word.toLowerCase().replace(/^\W+/, '');
