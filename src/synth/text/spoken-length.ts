// How much a script will say once its aliases and spell-outs are expanded: what MAX_TEXT_CHARS limits, since a
// lexicon alias of 500 characters for "a", or `<say-as interpret-as="characters">` (a letter becomes "double you, "),
// would otherwise turn a text within the limit into hours of speech.
import { sayAsWords } from './say-as.ts';
import type { Script } from './script.ts';

/** A request's spoken text would be longer than its limit once expanded (thrown where the expansion happens). */
export class TextTooLongError extends Error {
  constructor(
    readonly chars: number,
    readonly limit: number,
  ) {
    super(
      `once lexicon aliases, <sub> aliases and <say-as> spell-outs are expanded, the text is ${chars} characters; the limit is ${limit} (MAX_TEXT_CHARS)`,
    );
    this.name = 'TextTooLongError';
  }
}

/**
 * Characters the script speaks with every alias and `<say-as>` expanded (English spelling, the longest of the
 * languages' forms), before numbers and abbreviations are normalized; phonemes count as their written word.
 */
export function expandedLength(script: Script): number {
  let n = 0;
  for (const p of script.pieces) {
    if (p.type === 'text' || p.type === 'phoneme') n += p.text.length;
    else if (p.type === 'sub') n += p.alias.length;
    else if (p.type === 'say-as') n += sayAsWords(p, true).text.length;
  }
  return n;
}

/** Throws TextTooLongError when the script says more than `limit` characters once expanded (no limit: nothing). */
export function checkExpandedLength(script: Script, limit: number | undefined): void {
  if (limit === undefined) return;
  const chars = expandedLength(script);
  if (chars > limit) throw new TextTooLongError(chars, limit);
}
