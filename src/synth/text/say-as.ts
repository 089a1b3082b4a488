// <say-as> content as the words an engine should read. English voices get the words spelled out here (the
// engines would otherwise guess: "1/2/2025", "ABC"); other languages get the characters spaced apart (spelling)
// or the text as written, which espeak reads in that language.
import { concatMapped, standingFor, verbatim, type MappedText } from './mapped.ts';
import { normalizeEnglishMapped } from './normalize-en.ts';
import { decimal, digits, integerWords, ordinal, year } from './number-words.ts';
import type { SayAsRun } from './script.ts';
import { lookupTable } from './lookup-table.ts';

const LETTERS = lookupTable<string>({
  a: 'ay',
  b: 'bee',
  c: 'see',
  d: 'dee',
  e: 'ee',
  f: 'eff',
  g: 'jee',
  h: 'aitch',
  i: 'eye',
  j: 'jay',
  k: 'kay',
  l: 'el',
  m: 'em',
  n: 'en',
  o: 'oh',
  p: 'pee',
  q: 'cue',
  r: 'ar',
  s: 'ess',
  t: 'tee',
  u: 'you',
  v: 'vee',
  w: 'double you',
  x: 'ex',
  y: 'why',
  z: 'zee',
});
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Each character its own spoken word, mapped to that character; white space and punctuation are skipped. */
function spell(run: SayAsRun, english: boolean): MappedText {
  const parts: MappedText[] = [];
  let i = 0;
  for (const ch of run.text) {
    const at = run.offset + Math.min(i, run.length);
    i += ch.length;
    if (!/[\p{L}\p{N}]/u.test(ch)) continue;
    const lower = ch.toLowerCase();
    const word = english ? (LETTERS[lower] ?? (/\d/.test(ch) ? digits(ch) : ch)) : ch.toUpperCase();
    // Commas make every engine pause a little between letters, as people do when spelling.
    parts.push(standingFor(word, at, at + ch.length), standingFor(', ', at + ch.length, at + ch.length));
  }
  return parts.length === 0 ? standingFor('', run.offset, run.offset) : concatMapped(parts);
}

function dateWords(text: string, format: string): string | undefined {
  const fields = text.split(/[^\d]+/).filter(Boolean);
  if (fields.length !== format.length) return undefined;
  let d: number | undefined;
  let m: number | undefined;
  let y: number | undefined;
  format.split('').forEach((f, i) => {
    const n = Number(fields[i]);
    if (f === 'd') d = n;
    else if (f === 'm') m = n;
    else y = fields[i].length === 2 ? 2000 + n : n;
  });
  if (m !== undefined && (m < 1 || m > 12)) return undefined;
  if (d !== undefined && (d < 1 || d > 31)) return undefined;
  const month = m !== undefined ? MONTHS[m - 1] : undefined;
  const parts: string[] = [];
  if (month && d !== undefined) parts.push(`${month} ${ordinal(d)}`);
  else if (month) parts.push(month);
  else if (d !== undefined) parts.push(`the ${ordinal(d)}`);
  if (y !== undefined) parts.push(year(y));
  return parts.join(', ');
}

/** The words a say-as run is read as, each mapped back to the run's source. */
export function sayAsWords(run: SayAsRun, english: boolean): MappedText {
  const whole = (words: string | undefined): MappedText =>
    words === undefined ? verbatimOf(run) : standingFor(words, run.offset, run.offset + run.length);
  const bare = run.text.trim();
  if (run.interpretAs === 'characters') return spell(run, english);
  if (!english) return verbatimOf(run);
  switch (run.interpretAs) {
    case 'cardinal': {
      const n = bare.replace(/,/g, '');
      return whole(/^-?\d+(?:\.\d+)?$/.test(n) ? `${n.startsWith('-') ? 'minus ' : ''}${decimal(n.replace(/^-/, ''))}` : undefined);
    }
    case 'ordinal': {
      const n = bare.replace(/,|(?:st|nd|rd|th)$/gi, '');
      return whole(/^\d{1,15}$/.test(n) ? ordinal(Number(n)) : undefined);
    }
    case 'digits':
      return whole(
        /\d/.test(bare)
          ? bare
              .split(/[^\d]+/)
              .filter(Boolean)
              .map(digits)
              .join(' ')
          : undefined,
      );
    case 'telephone':
      return whole(
        /\d/.test(bare)
          ? `${bare.startsWith('+') ? 'plus ' : ''}${bare
              .split(/[^\d]+/)
              .filter(Boolean)
              .map(digits)
              .join(', ')}`
          : undefined,
      );
    case 'date':
      return whole(dateWords(bare, run.format ?? 'mdy') ?? (/^\d+$/.test(bare) ? integerWords(bare) : undefined));
    case 'time':
      return normalizeEnglishMapped(verbatimOf(run));
  }
}

function verbatimOf(run: SayAsRun): MappedText {
  // The content may have held entities; then it stands as a whole for its span.
  return run.text.length === run.length ? verbatim(run.text, run.offset) : standingFor(run.text, run.offset, run.offset + run.length);
}
