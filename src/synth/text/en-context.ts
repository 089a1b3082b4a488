// What the English normalization rules look at around a match: where sentences end, the word before, whether a
// number stands before a noun as an adjective ("a $5,000 prize"), and the rule shape they all share.

/** A pattern (global regex) and what its match is said as; undefined leaves the match for later rules. */
export type Rule = readonly [RegExp, (m: RegExpExecArray, text: string) => string | undefined];

/** Whether text[end..] starts a new sentence (or nothing follows): a period swallowed there must come back. */
export function endsSentence(text: string, end: number): boolean {
  return /^\s*(?:$|["'”’)\]]*\s+[A-Z])/.test(text.slice(end));
}

/**
 * Stricter than endsSentence, for abbreviations that names often follow ("the U.S. Senate", "5 p.m. EST",
 * "Jan. Smith"): the sentence ends there only when nothing follows or the next word usually opens a sentence.
 */
export function likelyEndsSentence(text: string, end: number): boolean {
  if (!endsSentence(text, end)) return false;
  const next = /^\s*["'”’)\]]*\s+(\p{Lu}[\p{L}'’]*)/u.exec(text.slice(end))?.[1];
  return next === undefined || SENTENCE_STARTERS.has(next);
}

/** The period a matched abbreviation swallowed, when it also ended the sentence. */
export function keptPeriod(matched: string, text: string, end: number): string {
  return matched.endsWith('.') && endsSentence(text, end) ? '.' : '';
}

/** Capitalised words that usually open a sentence rather than name someone or something. */
export const SENTENCE_STARTERS = new Set(
  (
    'A An The It Its He She We They I You This That These Those There Here His Her Our My Your Their In On At But And So ' +
    'Then If When After Before For From To Of By With As Or Nor Yet Is Are Was Were Be Been Has Have Had Do Does Did ' +
    'Will Would Can Could Should May Might Must Call Dial Text See Read Buy Get Take Visit Add Use About Over Under ' +
    'Only Just Every Each Some All No Not Now Today Tomorrow Yesterday Around Approximately Nearly Almost Since Until ' +
    'Between Among Per Up Down Out Off Into Onto Through During Without Within Across Behind Beyond Near Past Like ' +
    'Roughly Exactly Precisely Maybe Perhaps Another Total Over Under Less More Fewer Least Most Another Several Many'
  ).split(' '),
);

/**
 * The text just before `index`, enough for the few words a rule looks back at. Rules test it with patterns
 * anchored at its end; a whole long prefix would cost a scan of it for every match. When it is cut, it starts
 * with a NUL, so `^` in those patterns still means the start of the text.
 */
export function lookBehind(text: string, index: number, length = 100): string {
  return index <= length ? text.slice(0, index) : `\0${text.slice(index - length, index)}`;
}

/** Whether `index` is where a sentence starts (nothing but opening punctuation since the last full stop). */
export function atSentenceStart(text: string, index: number): boolean {
  return /(?:^|[.!?:;]["'”’)\]]*\s+|\n\s*)["'“‘([]*$/.test(lookBehind(text, index));
}

// Words after a quantity that show it is not an adjective before a noun ("the $50 was returned").
const NOT_NOUNS = new Set(
  (
    'a an the of for to in on at and or but nor is was are were be been being will would can could should shall may ' +
    'might must has have had do does did that which who whom whose than from per each more less cash plus minus with ' +
    'by as if so then too off up down out over under back now today tonight yesterday tomorrow this these those it ' +
    'its his her their our my your we they he she you i me him them us after before since until while when where ' +
    'why how not no yes all any some every into onto upon about above below between within without via apiece total ' +
    'altogether overall each extra more worth instead only just also again still yet already ago later earlier'
  ).split(' '),
);

const DETERMINER = /\b(?:a|an|the|this|that|these|those|my|your|his|her|its|our|their|one|each|every|any|no|another|whose)\s+$/i;

/**
 * A quantity used as an adjective, which takes the singular unit: "a $5,000 prize" is a five thousand dollar prize,
 * "a 12 V battery" a twelve volt battery. It needs a determiner before it and a noun after it (a word that is not
 * a verb, a preposition, a pronoun or another function word); a hyphen after the quantity settles it alone.
 */
export function isAttributive(text: string, start: number, end: number): boolean {
  const after = text.slice(end);
  if (/^-[a-z]/.test(after)) return true;
  // A noun may be a name or an initialism too: "a $25 Amazon card", "a 55 in TV".
  const next = /^\s+([A-Za-z][A-Za-z'-]*)/.exec(after)?.[1]?.toLowerCase();
  if (next === undefined || NOT_NOUNS.has(next)) return false;
  return DETERMINER.test(lookBehind(text, start));
}
