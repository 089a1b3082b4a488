// Symbols in English text. Between numbers they are arithmetic ("3 + 4 = 7", "5 × 3", "2^10"); before a number,
// qualifiers ("~3 hours" is about three hours, "< 5 ms" less than five milliseconds); anywhere else either a
// word (&, @, +, =, %, °, ©, §) or nothing (*, _, |, ™, bullets). After these rules no symbol is left that
// an engine would read its own way: espeak-ng says "tilde", "asterisk", "slash", "dot" and "Roman" by itself,
// flite says "underscore", "caret", "bar" or nothing, and the two must say the same words.
import { lookBehind, type Rule } from './en-context.ts';
import { CURRENCY_SIGNS } from './en-units.ts';

/** Whether an equals sign follows in the same clause: then "-" and "x" between numbers are arithmetic. */
const equationAhead = (text: string, end: number): boolean => /^[^.;,!?]*=/.test(text.slice(end));

/** Signs before a quantity, read before the quantity rules turn it into words ("~3 hours", "< 5 ms"). */
export const QUALIFIER_RULES: readonly Rule[] = [
  [/\s?±\s?/g, () => ' plus or minus '],
  // "~3 hours" is about three hours; after "about" or "approximately" the sign adds nothing.
  [
    /~\s?(?=[\d$£€¥₹.])/g,
    (m, text) => (/\b(?:about|approximately|around|roughly|approx\.?)\s*$/i.test(lookBehind(text, m.index)) ? '' : 'about '),
  ],
  [/≈\s?/g, () => ' approximately '],
  [/≤\s?/g, () => ' less than or equal to '],
  [/≥\s?/g, () => ' greater than or equal to '],
  [/≠\s?/g, () => ' not equal to '],
  [/<\s?(?=[-\d$£€¥₹.])/g, () => ' less than '],
  [/>\s?(?=[-\d$£€¥₹.])/g, () => ' more than '],
];

export const MATH_RULES: readonly Rule[] = [
  [/(?<=\d)\s?\+\s?(?=\d)/g, () => ' plus '],
  [/(?<=\d)\s?[x×]\s?(?=\d)/g, (m, text) => (m[0].includes('×') && equationAhead(text, m.index + m[0].length) ? ' times ' : ' by ')],
  [/(?<=\d)\s?[*·]\s?(?=\d)/g, () => ' times '],
  [/(?<=\d)\s?÷\s?(?=\d)/g, () => ' divided by '],
  [/(?<=\d)\s\/\s(?=\d)/g, () => ' divided by '],
  [/(?<=\d)\s?\^\s?(?=\d)/g, () => ' to the power of '],
  // "10 - 3 = 7" subtracts; "10 - 12" with spaces is a range.
  [/(?<=\d)\s[-–]\s(?=\d)/g, (m, text) => (equationAhead(text, m.index + m[0].length) ? ' minus ' : ' to ')],
  [/(?<=\d)\s?−\s?(?=\d)/g, () => ' minus '],
  [/\s?=\s?/g, () => ' equals '],
  [/(?<=\d)²/g, () => ' squared'],
  [/(?<=\d)³/g, () => ' cubed'],
];

// What is left after the number rules: "word/word", signs standing alone.
const PER_WORDS: Readonly<Record<string, string>> = {
  hour: 'hour',
  hr: 'hour',
  h: 'hour',
  day: 'day',
  week: 'week',
  wk: 'week',
  month: 'month',
  mo: 'month',
  year: 'year',
  yr: 'year',
  night: 'night',
  person: 'person',
  head: 'head',
  unit: 'unit',
  item: 'item',
  kg: 'kilogram',
  lb: 'pound',
  serving: 'serving',
  user: 'user',
  seat: 'seat',
  page: 'page',
  word: 'word',
  mile: 'mile',
  km: 'kilometer',
  minute: 'minute',
  min: 'minute',
  second: 'second',
  sec: 'second',
  gallon: 'gallon',
  liter: 'liter',
  pack: 'pack',
  piece: 'piece',
  share: 'share',
  visit: 'visit',
  session: 'session',
  class: 'class',
  ticket: 'ticket',
  trip: 'trip',
  game: 'game',
  student: 'student',
  adult: 'adult',
  child: 'child',
  room: 'room',
  lesson: 'lesson',
};
const SLASH_WORDS: Readonly<Record<string, string>> = {
  'w/': 'with',
  'w/o': 'without',
  'c/o': 'care of',
  'a/c': 'A C',
  'n/a': 'N A',
  'and/or': 'and or',
  'b/c': 'because',
};

const SIGN_WORDS: Readonly<Record<string, string>> = {
  '&': 'and',
  '@': 'at',
  '+': 'plus',
  '%': 'percent',
  '°': 'degrees',
  '©': 'copyright',
  '§': 'section',
  '¶': 'paragraph',
  '№': 'number',
  '‰': 'per mille',
  '→': 'to',
  '√': 'square root of',
  '∞': 'infinity',
  π: 'pi',
  '♥': 'love',
  '❤': 'love',
  '²': 'squared',
  '³': 'cubed',
  '#': 'number',
  '∆': 'delta',
  Δ: 'delta',
  '¢': 'cents',
  '−': 'minus',
  '×': 'times',
  '÷': 'divided by',
};
// Said by some engine but not by a reader: trademarks, footnote marks, bullets, markup.
const SILENT = /[*_|\\^~`<>{}′″™®℠†‡•·★☆✓✔✗✘♦◆■□▪●○←↑↓⇒⇐↔]+/g;

/** Slashes between words, read while numbers are still digits (so "3/12/24" never becomes "three or twelve"). */
export const SLASH_RULES: readonly Rule[] = [
  [/(?<![\w/])(w\/o|w\/|c\/o|a\/c|n\/a|and\/or|b\/c)(?![\w/])/gi, (m) => ` ${SLASH_WORDS[m[1].toLowerCase()]} `],
  [/(?<=\p{Ll})\/(\p{Ll}+)\b/gu, (m) => (PER_WORDS[m[1]] ? ` per ${PER_WORDS[m[1]]}` : ` or ${m[1]}`)],
  [/(?<=\p{L})\/(?=\p{L})/gu, () => ' '],
];

export const SYMBOL_RULES: readonly Rule[] = [
  // Letter ranges: "A–Z".
  [/\b([A-Z])\s?–\s?([A-Z])\b/g, (m) => `${m[1]} to ${m[2]}`],
  [/\b([A-Z]{1,3})&([A-Z]{1,3})\b/g, (m) => `${m[1].split('').join(' ')} and ${m[2].split('').join(' ')}`],
  [/\b([A-G])#(?!\w)/g, (m) => `${m[1]} sharp`],
  [/\+\+/g, () => ' plus plus '],
  [new RegExp(`[${Object.keys(SIGN_WORDS).join('')}]`, 'g'), (m) => ` ${SIGN_WORDS[m[0]]} `],
  [
    new RegExp(
      `(?:${Object.keys(CURRENCY_SIGNS)
        .filter((s) => s.length === 1)
        .map((s) => (s === '$' ? '\\$' : s))
        .join('|')})`,
      'g',
    ),
    (m) => ` ${CURRENCY_SIGNS[m[0]].many} `,
  ],
  [SILENT, () => ' '],
  [/\s\/\s|\/+/g, () => ' '],
  // A period standing alone is read "dot" by espeak.
  [/(?<=\s)\.(?=\s)/g, () => ''],
];
