// Sentence splitting for every language. Each piece is synthesized as one engine call, so pieces are
// capped in length (the first one too: its audio leaves while the engine renders it, so it need not be shorter).

/** What follows a piece: how long a pause the pipeline puts before the next one. */
export type Break = 'paragraph' | 'sentence' | 'clause' | 'none';

export interface Sentence {
  text: string;
  break: Break;
}

export interface SplitOptions {
  /** Longest piece, in characters (UTF-16 units). */
  maxChars?: number;
}

export const DEFAULT_MAX_CHARS = 220;

// Words whose period never ends a sentence (titles and the like, several languages; English ones are
// normally expanded before splitting).
const NO_BREAK_AFTER = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'vs',
  'gen',
  'capt',
  'lt',
  'sgt',
  'rev',
  'hon',
  'mt',
  'no',
  'nr',
  'hr',
  'fr',
  'frau',
  'herr',
  'sra',
  'srta',
  'dña',
  'mme',
  'mlle',
  'mm',
  'z.b',
  'u.a',
  'bzw',
  'ca',
  'vgl',
  'd.h',
  'e.g',
  'i.e',
  'cf',
  'fig',
  'vol',
  'pp',
  'approx',
  'str',
  // Short weekdays and months ("Mon. Jan. 5"); "sat", "sun", "mar" and "may" are words too, so they may end one.
  'mon',
  'tue',
  'tues',
  'wed',
  'thu',
  'thur',
  'thurs',
  'fri',
  'jan',
  'feb',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const TERMINAL = /[.!?…。！？।؟።]/;
// Scripts that end sentences without a following space.
const CLOSED_TERMINAL = /[。！？]/;
export const CLOSERS = /["'”’»)\]」』]/;
const SOFT_BREAKS = /[,;:，、；：—–]/;

function isLower(ch: string): boolean {
  return ch !== ch.toUpperCase() && ch === ch.toLowerCase();
}

/** Opening quotes and brackets that may stand before a word. */
export const OPENERS = /^["'“‘([«]+/;

/**
 * Whether a period after `word` (openers stripped) never ends a sentence, whatever follows: a title or the like,
 * or a single capital, an initial ("J. R. R. Tolkien").
 */
export function neverEndsAfter(word: string): boolean {
  return NO_BREAK_AFTER.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word);
}

/** Whether the period at `i` ends a sentence (not an abbreviation, an initial or a decimal point). */
function periodEnds(text: string, i: number, next: string | undefined): boolean {
  const word = /(\S+)$/.exec(text.slice(0, i))?.[1] ?? '';
  const bare = word.replace(OPENERS, '');
  if (neverEndsAfter(bare)) return false;
  // A lower-case word after the period continues the sentence: "approx. five".
  if (next !== undefined && isLower(next)) return false;
  return true;
}

/** Splits into sentences at terminal punctuation and blank lines; long sentences are cut further. */
export function splitSentences(text: string, options: SplitOptions = {}): Sentence[] {
  const maxChars = Math.max(20, options.maxChars ?? DEFAULT_MAX_CHARS);
  const raw: Sentence[] = [];
  const paragraphs = text.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  for (const para of paragraphs) {
    const lines = joinLines(para);
    for (const line of lines) raw.push(...splitLine(line));
    if (raw.length > 0) raw[raw.length - 1].break = 'paragraph';
  }
  if (raw.length > 0) raw[raw.length - 1].break = 'sentence';
  const out: Sentence[] = [];
  for (const s of raw) {
    for (const piece of capLength(s, maxChars, maxChars)) out.push(piece);
  }
  return out;
}

/** Single newlines are spaces, except after a short unpunctuated line (a heading or a list item). */
function joinLines(para: string): string[] {
  const lines = para
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const out: string[] = [];
  for (const line of lines) {
    const prev = out[out.length - 1];
    const headingLike = prev !== undefined && prev.length <= 60 && !/[\p{P}]$/u.test(prev) && /^\p{Lu}|^[-*•\d]/u.test(line);
    if (prev === undefined || headingLike || TERMINAL.test(prev.slice(-1))) out.push(line);
    else out[out.length - 1] = `${prev} ${line}`;
  }
  return out;
}

function splitLine(line: string): Sentence[] {
  const out: Sentence[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (!TERMINAL.test(ch)) continue;
    let end = i + 1;
    while (end < line.length && (TERMINAL.test(line[end]) || CLOSERS.test(line[end]))) end++;
    const closed = CLOSED_TERMINAL.test(ch);
    const atSpace = end >= line.length || /\s/.test(line[end]);
    if (!closed && !atSpace) continue;
    const next = line.slice(end).trimStart()[0];
    if (ch === '.' && end === i + 1 && !periodEnds(line, i, next)) continue;
    if (next !== undefined && isLower(next)) continue;
    const text = line.slice(start, end).trim();
    if (text !== '') out.push({ text, break: 'sentence' });
    start = end;
    i = end - 1;
  }
  const rest = line.slice(start).trim();
  if (rest !== '') out.push({ text: rest, break: 'sentence' });
  return out;
}

/** Cuts an over-long sentence at the last soft break (comma, semicolon, dash) or space before the limit. */
function capLength(s: Sentence, firstLimit: number, limit: number): Sentence[] {
  const out: Sentence[] = [];
  let text = s.text;
  let max = firstLimit;
  while (text.length > max) {
    let cut = -1;
    let kind: Break = 'none';
    for (let i = Math.min(max - 1, text.length - 1); i >= Math.floor(max * 0.3); i--) {
      if (SOFT_BREAKS.test(text[i]) && (i + 1 >= text.length || /\s/.test(text[i + 1]) || /[，、；：]/.test(text[i]))) {
        cut = i + 1;
        kind = 'clause';
        break;
      }
    }
    if (cut < 0) {
      const space = text.lastIndexOf(' ', max);
      if (space >= Math.floor(max * 0.3)) cut = space;
    }
    if (cut < 0) {
      cut = max;
      // Never cut a surrogate pair in half.
      if (/[\uDC00-\uDFFF]/.test(text[cut] ?? '')) cut--;
    }
    const head = text.slice(0, cut).trim();
    if (head !== '') out.push({ text: head, break: kind });
    text = text.slice(cut).trim();
    max = limit;
  }
  if (text !== '') out.push({ text, break: s.break });
  return out;
}
