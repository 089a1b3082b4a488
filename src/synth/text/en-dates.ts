// Dates, weekdays and times in English text, and the slash forms that may be dates, fractions or scores: a slash
// form is read by its neighbours ("Tue 3/12" and "by 3/15" are dates, "2/3 cup" and "1/4 of" fractions,
// "rated 4.5/5" a score).
import { endsSentence, keptPeriod, likelyEndsSentence, lookBehind, SENTENCE_STARTERS, type Rule } from './en-context.ts';
import { UNIT_ALT, unitOf } from './en-units.ts';
import { cardinal, fraction, ordinal, year } from './number-words.ts';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_ALT =
  'Jan(?:uary|\\.)?|Feb(?:ruary|\\.)?|Mar(?:ch|\\.)?|Apr(?:il|\\.)?|May|June?\\.?|July?\\.?|Aug(?:ust|\\.)?|Sept?(?:ember|\\.)?|Oct(?:ober|\\.)?|Nov(?:ember|\\.)?|Dec(?:ember|\\.)?';
// Month abbreviations with a period outside a date ("in Jan. we met"); "Mar." and "May" need no care here.
const MONTH_ABBREVIATIONS = 'Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec';

function monthOf(token: string): string | undefined {
  const t = token.replace('.', '').toLowerCase();
  return MONTHS.find((m) => m.toLowerCase().startsWith(t.slice(0, 3)));
}

function dateWords(y: number | undefined, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const md = `${MONTHS[m - 1]} ${ordinal(d)}`;
  return y === undefined ? md : `${md}, ${year(y)}`;
}

// Weekdays written short; "Sat", "Sun" and "Wed" are words too, so these are expanded only where a date, a
// range or a period shows they are weekdays.
const WEEKDAYS: Readonly<Record<string, string>> = {
  Mon: 'Monday',
  Tue: 'Tuesday',
  Tues: 'Tuesday',
  Wed: 'Wednesday',
  Thu: 'Thursday',
  Thur: 'Thursday',
  Thurs: 'Thursday',
  Fri: 'Friday',
  Sat: 'Saturday',
  Sun: 'Sunday',
};
const WEEKDAY_SHORT = 'Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun';
const WEEKDAY_ANY = `(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|${WEEKDAY_SHORT})`;
const WEEKDAY_BEFORE = new RegExp(`\\b${WEEKDAY_ANY}\\.?,?\\s+$`);

function weekday(token: string): string {
  return WEEKDAYS[token.replace('.', '')] ?? token.replace('.', '');
}

// Words after which "3/15" is a date rather than a fraction.
const DATE_CONTEXT = /\b(?:on|by|until|till|from|since|before|after|due|through|starting|ending|dated|expires?|deadline|date)\s+$/i;
// Words after which a slash form is a score: "rated 4.5/5", "scored 45/50".
const SCORE_CONTEXT =
  /\b(?:scored?|scoring|rated|rating|rates|got|gets|earned|graded|grade|marks?|points?|(?:give|gave|given|rate) (?:it|them|him|her|this))\s+$/i;
// Words after a slash form that make it a fraction: "2/3 cup", "1/4 of", "5/16 inch", "3/4-mile".
const FRACTION_AFTER = new RegExp(
  `^(?:\\s*-?\\s*(?:of|an?|cups?|teaspoons?|tablespoons?|inch(?:es)?|in\\b|miles?|pounds?|ounces?|gallons?|liters?|litres?|quarts?|pints?|` +
    `hours?|minutes?|yards?|foot|feet|acres?|sticks?|slices?|shares?|stake|majority|turns?|notes?|` +
    `(?:${UNIT_ALT})(?![\\w°]))|["″])`,
);
const POWERS_OF_TWO = new Set([2, 4, 8, 16, 32, 64]);

function slashReading(a: string, b: string, text: string, start: number, end: number): string {
  const before = lookBehind(text, start);
  const after = text.slice(end);
  const num = Number(a);
  const den = Number(b);
  if (/\./.test(a) || SCORE_CONTEXT.test(before) || /^\s*stars?\b/.test(after))
    return `${a.includes('.') ? decimalWords(a) : cardinal(num)} out of ${cardinal(den)}`;
  const date = /\./.test(a) ? undefined : dateWords(undefined, num, den);
  // "03/12": a leading zero is written only in dates.
  if (date && (WEEKDAY_BEFORE.test(before) || DATE_CONTEXT.test(before) || /^0\d/.test(a) || /^0\d/.test(b))) return date;
  if (den === 0) return `${cardinal(num)} over zero`;
  if (FRACTION_AFTER.test(after)) return fraction(num, den);
  if (date && den > 12 && !POWERS_OF_TWO.has(den)) return date;
  return fraction(num, den);
}

function decimalWords(s: string): string {
  const [i, f] = s.split('.');
  return `${cardinal(Number(i))} point ${[...f].map((d) => cardinal(Number(d))).join(' ')}`;
}

// Slash forms that are neither fractions nor dates.
const SLASH_IDIOMS: Readonly<Record<string, string>> = {
  '24/7': 'twenty-four seven',
  '9/11': 'nine eleven',
  '50/50': 'fifty-fifty',
  '20/20': 'twenty-twenty',
  '10/10': 'ten out of ten',
};

const VULGAR: Readonly<Record<string, readonly [number, number]>> = {
  '½': [1, 2],
  '⅓': [1, 3],
  '⅔': [2, 3],
  '¼': [1, 4],
  '¾': [3, 4],
  '⅕': [1, 5],
  '⅖': [2, 5],
  '⅗': [3, 5],
  '⅘': [4, 5],
  '⅙': [1, 6],
  '⅚': [5, 6],
  '⅐': [1, 7],
  '⅛': [1, 8],
  '⅜': [3, 8],
  '⅝': [5, 8],
  '⅞': [7, 8],
  '⅑': [1, 9],
  '⅒': [1, 10],
};

/** "and a half", "and three quarters": the fraction after a whole number. */
function fractionAfterWhole(num: number, den: number): string {
  return num === 1 && den === 2 ? 'a half' : fraction(num, den);
}

const UNIT_AFTER = `(?:\\s?|-)(${UNIT_ALT}|in(?=\\.))(\\.)?(?![\\w°²³/])`;

function fractionOfUnit(
  whole: string | undefined,
  num: number,
  den: number,
  written: string,
  matched: string,
  text: string,
  at: number,
): string | undefined {
  const unit = written === 'in' ? { one: 'inch', many: 'inches' } : unitOf(written);
  if (!unit || den === 0 || num >= den) return undefined;
  const period = matched.endsWith('.') && endsSentence(text, at + matched.length) ? '.' : '';
  if (whole) return `${cardinal(Number(whole))} and ${fractionAfterWhole(num, den)} ${unit.many}${period}`;
  return ` ${fraction(num, den)} ${unit.one}${period}`;
}

function timeWords(h: number, min: number, sec: string | undefined, hasMeridiem: boolean): string {
  let words: string;
  if (min === 0) words = hasMeridiem ? cardinal(h) : h > 12 || h === 0 ? `${cardinal(h)} hundred` : `${cardinal(h)} o'clock`;
  else words = `${cardinal(h)} ${min < 10 ? `oh ${cardinal(min)}` : cardinal(min)}`;
  if (sec) words += ` and ${cardinal(Number(sec))} seconds`;
  return words;
}

/** The meridiem as two letters (both engines spell "A M"), keeping a sentence-ending period it swallowed. */
function meridiem(letter: string, matched: string, text: string, end: number): string {
  return ` ${letter.toUpperCase()} M${matched.endsWith('.') && likelyEndsSentence(text, end) ? '.' : ''}`;
}

const MERIDIEM = '(?:\\s*([AaPp])\\.?\\s?[Mm]\\b\\.?)';

export const DATE_RULES: readonly Rule[] = [
  // "Mon. Jan. 5", "Tue 3/12", "Fri, 6/7": a short weekday before a date is said in full, and its period ends nothing.
  [
    new RegExp(
      `\\b(${Object.keys(WEEKDAYS).join('|')})(\\.(?=,?\\s+(?:${MONTH_ALT}|\\d))|(?=,?\\s+(?:(?:${MONTH_ALT})\\s+\\d|\\d{1,2}\\/\\d{1,2}(?!\\d)|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTH_ALT})(?![a-z]))))`,
      'g',
    ),
    (m) => WEEKDAYS[m[1]],
  ],
  // Weekday and month ranges: "Mon–Fri", "Tue-Thu", "Jan–Mar" are "Monday to Friday".
  [
    new RegExp(`\\b(${WEEKDAY_ANY}\\.?)\\s?(?:[–—-]|(to|through|thru)\\s)\\s?(${WEEKDAY_ANY}\\.?)(?![\\w'])`, 'g'),
    (m, text) =>
      `${weekday(m[1])} ${m[2] === 'thru' ? 'through' : (m[2] ?? 'to')} ${weekday(m[3])}${keptPeriod(m[0], text, m.index + m[0].length)}`,
  ],
  // "M–F": weekdays by their initials.
  [/\bM\s?[–-]\s?F\b/g, () => 'Monday to Friday'],
  [
    new RegExp(`\\b(${MONTH_ALT})\\s?[–—-]\\s?(${MONTH_ALT})(?![\\w'])`, 'g'),
    (m, text) => {
      const a = monthOf(m[1]);
      const b = monthOf(m[2]);
      return a && b ? `${a} to ${b}${keptPeriod(m[0], text, m.index + m[0].length)}` : undefined;
    },
  ],
  // ISO dates.
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => dateWords(Number(m[1]), Number(m[2]), Number(m[3]))],
  // A short weekday anywhere else: "on Tue.", "see you Fri", "Sat and Sun", "Thurs works". "Wed", "Sat" and "Sun"
  // are words too: they need a weekday's neighbours ("on Sat", "Sun 10am", "Sat and Sun", "closed Sun.").
  [
    /\b(Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun)(\.)?(?![\p{L}\p{N}'’-])/gu,
    (m, text) => {
      const end = m.index + m[0].length;
      if (AMBIGUOUS_WEEKDAYS.has(m[1]) && !weekdayContext(text, m.index, end, m[1] === 'Wed')) return undefined;
      return `${WEEKDAYS[m[1]] ?? 'Wednesday'}${m[2] && endsSentence(text, end) ? '.' : ''}`;
    },
  ],
  // A short month without a period or a date: "in Sept", "from Nov to Jan", "due Feb". "Jan", "Mar", "Jun" and "Jul"
  // are names or words too, and need a month's neighbours.
  [
    /\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)(?![\p{L}\p{N}'’.-])/gu,
    (m, text) => {
      const before = lookBehind(text, m.index);
      const after = text.slice(m.index + m[0].length);
      if (AMBIGUOUS_MONTHS.has(m[1]) && !MONTH_BEFORE.test(before) && !/^,?\s+(?:\d|of\b|and\s+\p{Lu})/u.test(after)) return undefined;
      return monthOf(m[1]);
    },
  ],
  // US slash dates (month first), the year in full or in two digits.
  [
    /\b(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?![\d/])/g,
    (m) => dateWords(m[3].length === 2 ? 2000 + Number(m[3]) - (Number(m[3]) > 50 ? 100 : 0) : Number(m[3]), Number(m[1]), Number(m[2])),
  ],
  // Dotted dates are European (day first): "31.12.2024".
  [
    /(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d]|\.\d)/g,
    (m) => {
      const d = Number(m[1]);
      const mo = Number(m[2]);
      return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 ? `the ${ordinal(d)} of ${MONTHS[mo - 1]}, ${year(Number(m[3]))}` : undefined;
    },
  ],
  // "24/7", "9/11".
  [/(?<![\w/.])(\d+\/\d+)(?![\w/]|\.\d)/g, (m) => SLASH_IDIOMS[m[1]]],
  // Fractions of a unit: "1/2 tsp" is one half teaspoon, "1 1/2 tsp" one and a half teaspoons, "¾ in." three
  // quarters inch.
  [
    new RegExp(`(?<![\\w/.,])(?:(\\d+)\\s)?(\\d{1,2})\\/(\\d{1,2})${UNIT_AFTER}`, 'g'),
    (m, text) => fractionOfUnit(m[1], Number(m[2]), Number(m[3]), m[4], m[0], text, m.index),
  ],
  [
    new RegExp(`(?<![\\d.,])(\\d+)?\\s?([${Object.keys(VULGAR).join('')}])${UNIT_AFTER}`, 'g'),
    (m, text) => fractionOfUnit(m[1], VULGAR[m[2]][0], VULGAR[m[2]][1], m[3], m[0], text, m.index),
  ],
  // Mixed numbers: "1 1/2 cups" is "one and a half cups"; "2½" likewise.
  [
    /(?<![\w/.,])(\d+)\s(\d+)\/(\d+)(?![\w/]|\.\d)/g,
    (m) => {
      const num = Number(m[2]);
      const den = Number(m[3]);
      if (den === 0 || num >= den) return undefined;
      return `${cardinal(Number(m[1]))} and ${fractionAfterWhole(num, den)}`;
    },
  ],
  [
    new RegExp(`(?<![\\d.,])(\\d+)?\\s?([${Object.keys(VULGAR).join('')}])`, 'g'),
    (m) => {
      const [num, den] = VULGAR[m[2]];
      return m[1] ? `${cardinal(Number(m[1]))} and ${fractionAfterWhole(num, den)}` : ` ${fraction(num, den)}`;
    },
  ],
  // Slash forms by their neighbours: dates, fractions, scores.
  [/(?<![\w/.,])(\d{1,3}(?:\.\d)?)\/(\d{1,3})(?![\w/]|\.\d)/g, (m, text) => slashReading(m[1], m[2], text, m.index, m.index + m[0].length)],
  // "November 21, 2026", "Nov. 21st".
  [
    new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, 'g'),
    (m) => {
      const month = monthOf(m[1]);
      const d = Number(m[2]);
      if (!month || d < 1 || d > 31) return undefined;
      return `${month} ${ordinal(d)}${m[3] ? `, ${year(Number(m[3]))}` : ''}`;
    },
  ],
  // "21 November 2026", "21st of November", "the 4th of July", "the 5th May" (one "the", whether written or not).
  [
    new RegExp(`(?:\\b([Tt]he)\\s+)?\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_ALT})(?![a-z])(?:,?\\s+(\\d{4})\\b)?`, 'g'),
    (m, text) => {
      const month = monthOf(m[3]);
      const d = Number(m[2]);
      if (!month || d < 1 || d > 31) return undefined;
      // "June." and "Dec." may carry the sentence's own period.
      const period = !m[4] && m[3].endsWith('.') && endsSentence(text, m.index + m[0].length) ? '.' : '';
      return `${m[1] ?? 'the'} ${ordinal(d)} of ${month}${m[4] ? `, ${year(Number(m[4]))}` : ''}${period}`;
    },
  ],
  // Month and year: "in March 2024".
  [
    new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{4})\\b`, 'g'),
    (m) => {
      const month = monthOf(m[1]);
      return month ? `${month} ${year(Number(m[2]))}` : undefined;
    },
  ],
  // Ranges of times: "9am–5pm", "9:00-17:30" are said with "to".
  [
    /(?<=\b\d{1,2}(?::[0-5]\d)?(?:\s?[AaPp]\.?\s?[Mm]\.?)?)\s?[–—-]\s?(?=\d{1,2}(?::[0-5]\d)?\s?[AaPp]\.?\s?[Mm]\b|\d{1,2}:[0-5]\d)/g,
    (m, text) => (/\d$|[Mm]\.?$/.test(lookBehind(text, m.index)) ? ' to ' : undefined),
  ],
  // Times: 3:30, 3:05 pm, 9:30pm, 15:45, 10:30:15 a.m.
  [
    new RegExp(`\\b([01]?\\d|2[0-3]):([0-5]\\d)(?!\\d)(?::([0-5]\\d))?${MERIDIEM}?`, 'g'),
    (m, text) =>
      timeWords(Number(m[1]), Number(m[2]), m[3], m[4] !== undefined) + (m[4] ? meridiem(m[4], m[0], text, m.index + m[0].length) : ''),
  ],
  // British times with a dot and a meridiem: "5.30pm".
  [
    new RegExp(`\\b(1[0-2]|0?[1-9])\\.([0-5]\\d)${MERIDIEM}`, 'g'),
    (m, text) => timeWords(Number(m[1]), Number(m[2]), undefined, true) + meridiem(m[3], m[0], text, m.index + m[0].length),
  ],
  // Military time: "0900 hours" is oh nine hundred hours.
  [
    /\b([01]\d|2[0-3])([0-5]\d)(?=\s?(?:hours|hrs)\b)/g,
    (m) =>
      `${m[1].startsWith('0') ? `oh ${cardinal(Number(m[1]))}` : cardinal(Number(m[1]))} ${m[2] === '00' ? 'hundred' : Number(m[2]) < 10 ? `oh ${cardinal(Number(m[2]))}` : cardinal(Number(m[2]))}`,
  ],
  // Hours with a meridiem and no minutes: 9am, 9 a.m., 12 PM.
  [
    /\b(1[0-2]|0?[1-9])\s?([AaPp])\.?\s?[Mm]\b\.?/g,
    (m, text) => `${cardinal(Number(m[1]))}${meridiem(m[2], m[0], text, m.index + m[0].length)}`,
  ],
];

const AMBIGUOUS_WEEKDAYS = new Set(['Wed', 'Sat', 'Sun']);
const AMBIGUOUS_MONTHS = new Set(['Jan', 'Mar', 'Jun', 'Jul', 'Dec']);
const WEEKDAY_WORD = `(?:${WEEKDAY_ANY})\\.?`;
// Words before a short weekday that make it one: "on Sat", "every Sun", "closed Sun", "Sat and Sun".
const WEEKDAY_BEFORE_WORDS = new RegExp(
  `(?:\\b(?:on|every|next|last|this|until|till|by|from|through|thru|before|after|each|since|see you|closed|open|opens|due|starting|except|or|and|to)|${WEEKDAY_WORD}\\s*(?:,|and|or|to|&|[-–]))\\s*$`,
  'i',
);
// What may follow a weekday: a date, a time, a part of the day, another weekday, or the end of the sentence.
const WEEKDAY_AFTER = new RegExp(
  `^\\.?,?\\s*(?:$|\\d|[-–]|(?:at|from|to|and|or|morning|afternoon|evening|night|only)\\b|${WEEKDAY_WORD}|\\.\\s)`,
);
// Words before a short month that make it one: "in Jan", "from Nov to Jan", "early Mar".
const MONTH_BEFORE =
  /\b(?:in|since|from|to|until|till|by|of|early|late|mid|last|next|this|every|through|thru|and|or|between|before|after|during|due|each)\s+$/i;

/**
 * Whether "Sat", "Sun" or "Wed" at start..end is a weekday: a weekday's word before it, or, where nothing
 * but a sentence start or punctuation is before it, a date, a time or another weekday after it.
 */
function weekdayContext(text: string, start: number, end: number, wed: boolean): boolean {
  const before = lookBehind(text, start);
  if (/\b(?:the|a|an|this|that|our|my|his|her|their|its)\s+$/i.test(before)) return false;
  if (WEEKDAY_BEFORE_WORDS.test(before)) return true;
  const after = text.slice(end);
  // "Wed" is a weekday anywhere inside a sentence; at its start only before what a weekday takes.
  if (wed && !/(?:^|[.!?]\s+)["'“‘(]*$/.test(before)) return true;
  return WEEKDAY_AFTER.test(after);
}

/** Rules for month names written short, run after the number rules ("in Jan. we met"). */
export const MONTH_ABBREVIATION_RULES: readonly Rule[] = [
  [
    new RegExp(`\\b(${MONTH_ABBREVIATIONS})\\.(?!\\w)`, 'g'),
    (m, text) => {
      const end = m.index + m[0].length;
      const next = /^\s+([A-Z][\w']*)/.exec(text.slice(end))?.[1];
      const ends = endsSentence(text, end) && (next === undefined || SENTENCE_STARTERS.has(next));
      return `${monthOf(m[1])}${ends ? '.' : ''}`;
    },
  ],
];
