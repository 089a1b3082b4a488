// W3C Pronunciation Lexicon Specification (PLS 1.0) documents to lexicon rules, read with saxes (a strict,
// non-validating XML parser that reports line and column, expands no external entities and reads no DTD).
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { LEXICON_LIMITS, PHONEME_ALPHABETS, type LexiconRule, type PhonemeAlphabet } from '../schemas/lexicons.ts';

/** A document that is not well-formed XML or not a PLS lexicon; line and column (1-based) say where. */
export class PlsError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`PLS lexicon invalid at line ${line}, column ${column}: ${reason}`);
    this.name = 'PlsError';
  }
}

interface Pronunciation {
  kind: 'alias' | 'phoneme';
  text: string;
  alphabet: string | undefined;
  prefer: boolean;
}

interface Lexeme {
  graphemes: string[];
  pronunciations: Pronunciation[];
}

/**
 * Bounds checked while the document is read, so a hostile one stops at the first step past them rather than
 * after it was all taken in: PLS is three levels deep (lexicon, lexeme, grapheme) plus whatever metadata holds;
 * a grapheme, alias or phoneme is at most a few hundred characters (checkRules has the exact limits).
 */
export const PLS_READ_LIMITS = {
  maxDepth: 32,
  maxElements: 50_000,
  maxTextChars: 2 * LEXICON_LIMITS.aliasChars,
  maxRules: LEXICON_LIMITS.rulesPerLexicon,
} as const;

/** Elements a lexeme may hold whose text we read; anything else (example, meta, metadata) is skipped. */
const TEXT_ELEMENTS = new Set(['grapheme', 'alias', 'phoneme']);

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

function alphabetOf(value: string | undefined): PhonemeAlphabet | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  return (PHONEME_ALPHABETS as readonly string[]).includes(lower) ? (lower as PhonemeAlphabet) : undefined;
}

/**
 * The rules of a PLS document: one per grapheme of each lexeme, with the lexeme's preferred pronunciation
 * (the first with `prefer="true"`, else the first in document order, as PLS 1.0 §4.6 says). Phonemes take
 * their own `alphabet`, else the lexicon's; only ipa and x-sampa are accepted. Throws PlsError.
 */
export function parsePls(xml: string): LexiconRule[] {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const rules: LexiconRule[] = [];
  const path: string[] = [];
  let lexiconAlphabet: string | undefined;
  let lexeme: Lexeme | undefined;
  let lexemeAt = { line: 1, column: 1 };
  let text: { name: string; value: string; alphabet: string | undefined; prefer: boolean } | undefined;
  let sawRoot = false;
  let elements = 0;

  function here(): { line: number; column: number } {
    return { line: parser.line, column: parser.column + 1 };
  }
  function fail(reason: string, at = here()): never {
    throw new PlsError(reason, at.line, at.column);
  }

  const finishLexeme = (l: Lexeme): void => {
    if (l.graphemes.length === 0) fail('a <lexeme> has no <grapheme>', lexemeAt);
    const chosen = l.pronunciations.find((p) => p.prefer) ?? l.pronunciations[0];
    if (!chosen) fail(`<lexeme> "${l.graphemes[0]}" has neither <phoneme> nor <alias>`, lexemeAt);
    for (const grapheme of l.graphemes) {
      if (rules.length >= PLS_READ_LIMITS.maxRules)
        fail(`more than ${PLS_READ_LIMITS.maxRules} graphemes (a lexicon holds at most ${PLS_READ_LIMITS.maxRules} rules)`, lexemeAt);
      if (chosen.kind === 'alias') {
        rules.push({ grapheme, alias: chosen.text });
        continue;
      }
      const declared = chosen.alphabet ?? lexiconAlphabet;
      const alphabet = alphabetOf(declared);
      if (declared !== undefined && alphabet === undefined) fail(`alphabet "${declared}" is not supported (ipa or x-sampa)`, lexemeAt);
      rules.push({ grapheme, phoneme: chosen.text, ...(alphabet && alphabet !== 'ipa' ? { alphabet } : {}) });
    }
  };

  parser.on('error', (err) => {
    // saxes prefixes "line:column: "; the position is reported in fields instead.
    fail(err.message.replace(/^\d+:\d+:\s*/, ''));
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const name = tag.local;
    const parent = path.at(-1);
    path.push(name);
    if (path.length > PLS_READ_LIMITS.maxDepth) fail(`elements nested deeper than ${PLS_READ_LIMITS.maxDepth}`);
    if (++elements > PLS_READ_LIMITS.maxElements) fail(`more than ${PLS_READ_LIMITS.maxElements} elements`);
    const attr = (n: string): string | undefined => {
      const a = tag.attributes[n];
      return a === undefined ? undefined : a.value;
    };
    if (parent === undefined) {
      if (name !== 'lexicon') fail(`the root element is <${tag.name}>, not <lexicon>`);
      sawRoot = true;
      lexiconAlphabet = attr('alphabet');
      return;
    }
    if (parent === 'lexicon' && name === 'lexeme') {
      lexeme = { graphemes: [], pronunciations: [] };
      lexemeAt = here();
      return;
    }
    if (parent === 'lexeme' && TEXT_ELEMENTS.has(name)) {
      text = { name, value: '', alphabet: attr('alphabet'), prefer: attr('prefer') === 'true' };
      return;
    }
    if (text) fail(`<${tag.name}> is not allowed inside <${text.name}>`);
  });
  const addText = (t: string): void => {
    if (!text) return;
    text.value += t;
    if (text.value.length > PLS_READ_LIMITS.maxTextChars) fail(`<${text.name}> is longer than ${PLS_READ_LIMITS.maxTextChars} characters`);
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag: SaxesTagNS) => {
    path.pop();
    const name = tag.local;
    if (text && name === text.name && path.at(-1) === 'lexeme' && lexeme) {
      const value = collapse(text.value);
      if (value === '') fail(`<${name}> is empty`);
      if (name === 'grapheme') lexeme.graphemes.push(value);
      else
        lexeme.pronunciations.push({
          kind: name === 'alias' ? 'alias' : 'phoneme',
          text: value,
          alphabet: text.alphabet,
          prefer: text.prefer,
        });
      text = undefined;
      return;
    }
    if (name === 'lexeme' && path.at(-1) === 'lexicon' && lexeme) {
      finishLexeme(lexeme);
      lexeme = undefined;
    }
  });

  parser.write(xml);
  parser.close();
  if (!sawRoot) fail('the document has no <lexicon> element');
  return rules;
}
