// Where espeak-ng ends a clause, and with which punctuation: the decisions of its ReadClause for plain text (no
// SSML), made here on the text itself, because the phonemes call this build exposes reports clause breaks but
// not what ended each one — and Piper voices were trained with that punctuation in their input.
//
// espeak ends a clause at clause punctuation (. ? ! , : ; dashes, ellipsis, and their full-width forms) that is
// followed by a space, a bracket or quote, a "?", or the end of the text (some marks need no space after them);
// a run of punctuation counts as its first mark; three or more dots are an ellipsis; a full stop followed by a
// lower-case word, or before any letter or digit, or in "U.S.A.'s", does not end anything; two line breaks end
// a paragraph (and a sentence).

export type ClauseMark = '.' | '?' | '!' | ',' | ':' | ';' | 'dash' | 'ellipsis' | 'other' | null;

export interface EspeakClause {
  /** The clause's text, its closing punctuation included. */
  text: string;
  /** What ended it: null at the end of the text or of a paragraph. */
  mark: ClauseMark;
  /** Full stops, question and exclamation marks (of any script), paragraphs and the end of the text end a sentence. */
  endsSentence: boolean;
}

interface PunctType {
  mark: ClauseMark;
  sentence: boolean;
  /** Ends the clause without a space after it (full-width and CJK marks, the ellipsis, inverted marks). */
  noSpaceNeeded: boolean;
}

const PUNCT = new Map<string, PunctType>([
  ['.', { mark: '.', sentence: true, noSpaceNeeded: false }],
  ['?', { mark: '?', sentence: true, noSpaceNeeded: false }],
  ['!', { mark: '!', sentence: true, noSpaceNeeded: false }],
  [',', { mark: ',', sentence: false, noSpaceNeeded: false }],
  [':', { mark: ':', sentence: false, noSpaceNeeded: false }],
  [';', { mark: ';', sentence: false, noSpaceNeeded: false }],
  ['\u2013', { mark: 'dash', sentence: false, noSpaceNeeded: false }], // en dash
  ['\u2014', { mark: 'dash', sentence: false, noSpaceNeeded: false }], // em dash
  ['\u2026', { mark: 'ellipsis', sentence: false, noSpaceNeeded: true }],
  ['\u00a1', { mark: 'other', sentence: false, noSpaceNeeded: true }], // ¡
  ['\u00bf', { mark: 'other', sentence: false, noSpaceNeeded: true }], // ¿
  ['\u037e', { mark: '?', sentence: true, noSpaceNeeded: false }], // Greek question mark
  ['\u061f', { mark: '?', sentence: true, noSpaceNeeded: false }], // Arabic question mark
  ['\u060c', { mark: ',', sentence: false, noSpaceNeeded: false }], // Arabic comma
  ['\u061b', { mark: ';', sentence: false, noSpaceNeeded: false }], // Arabic semicolon
  ['\u0964', { mark: '.', sentence: true, noSpaceNeeded: false }], // Devanagari danda
  ['\u3002', { mark: 'other', sentence: true, noSpaceNeeded: true }], // 。
  ['\uff0e', { mark: 'other', sentence: true, noSpaceNeeded: true }],
  ['\uff1f', { mark: 'other', sentence: true, noSpaceNeeded: true }], // ？
  ['\uff01', { mark: 'other', sentence: true, noSpaceNeeded: true }], // ！
  ['\u3001', { mark: 'other', sentence: false, noSpaceNeeded: true }], // 、
  ['\uff0c', { mark: 'other', sentence: false, noSpaceNeeded: true }], // ，
  ['\uff1a', { mark: 'other', sentence: false, noSpaceNeeded: true }], // ：
  ['\uff1b', { mark: 'other', sentence: false, noSpaceNeeded: true }], // ；
]);

/** espeak's brackets (quotes included): after one of these, clause punctuation still ends the clause. */
const BRACKETS = new Set([
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '"',
  "'",
  '`',
  '\u00ab',
  '\u00bb',
  '\u300a',
  '\u300b',
  '\u300c',
  '\u300d',
  '\u300e',
  '\u300f',
  '\u3010',
  '\u3011',
]);

function isBracket(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return BRACKETS.has(c) || (code >= 0x2018 && code <= 0x201f);
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/u.test(c);
const isAlnum = (c: string): boolean => /[\p{L}\p{N}]/u.test(c);
const isLower = (c: string | undefined): boolean => c !== undefined && /\p{Ll}/u.test(c);

/** The clauses espeak-ng reads `text` as, in order; their texts concatenated (with spaces) give the text back. */
export function espeakClauses(text: string): EspeakClause[] {
  const chars = [...text];
  const out: EspeakClause[] = [];
  let start = 0;
  let anyAlnum = false;
  const push = (end: number, mark: ClauseMark, endsSentence: boolean) => {
    const piece = chars.slice(start, end).join('').trim();
    if (piece !== '') out.push({ text: piece, mark, endsSentence });
    start = end;
    anyAlnum = false;
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\n') {
      // A blank line (two line breaks, other spaces between them ignored) ends a paragraph.
      let j = i + 1;
      let breaks = 0;
      while (j < chars.length && isSpace(chars[j])) {
        if (chars[j] === '\n') breaks++;
        j++;
      }
      if (breaks > 0) {
        push(i, null, true);
        i = j - 1;
        start = j;
        continue;
      }
    }
    if (isAlnum(c)) {
      anyAlnum = true;
      continue;
    }
    let type = PUNCT.get(c);
    let end = i + 1;
    if (c === '.' && chars[i + 1] === '.') {
      let dots = 1;
      while (chars[i + dots] === '.') dots++;
      if (dots >= 3) {
        type = PUNCT.get('\u2026');
        end = i + dots;
      }
    }
    if (!type) continue;
    // A run of clause punctuation counts as its first mark ("?!", "!!!", ".,").
    while (end < chars.length && PUNCT.has(chars[end]) && !(type.mark === 'ellipsis' && chars[end] === '.')) end++;
    const next = chars[end];
    if (!(next === undefined || isSpace(next) || type.noSpaceNeeded || isBracket(next) || next === '?')) continue;
    if (!anyAlnum) continue;
    if (type.mark === '.' && c === '.') {
      let k = end;
      while (k < chars.length && isSpace(chars[k])) k++;
      const after = chars[k];
      if (after === "'" && chars[k + 1] === 's') continue; // "U.S.A.'s"
      if (isLower(after)) continue; // "e.g. this": an abbreviation, not a sentence end
    }
    push(end, type.mark, type.sentence);
    i = end - 1;
  }
  push(chars.length, null, true);
  return out;
}
