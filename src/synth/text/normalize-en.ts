// English text normalization: turns what people write (numbers, money, dates, times, abbreviations, addresses,
// symbols, Roman numerals) into what a speaker says, so every engine reads it the same way and none applies
// readings of its own on top. Rules run in order; each one consumes its pattern entirely, so later, more general
// rules (plain numbers, then stray symbols) never see it. The rule groups live beside this file, by category.
import { ABBREVIATION_RULES, BEFORE_NUMBER_RULES } from './en-abbreviations.ts';
import { lookBehind, type Rule } from './en-context.ts';
import { DATE_RULES, MONTH_ABBREVIATION_RULES } from './en-dates.ts';
import { INITIALISM_RULES } from './en-initialisms.ts';
import { DURATION_RULES } from './en-durations.ts';
import { MEASURE_RULES } from './en-measures.ts';
import { NOTATION_RULES } from './en-notation.ts';
import { LETTERED_RULES, PLACE_RULES, STREET_RULES } from './en-places.ts';
import { ROMAN_RULES } from './en-roman.ts';
import { MATH_RULES, QUALIFIER_RULES, SLASH_RULES, SYMBOL_RULES } from './en-symbols.ts';
import { VERSION_RULES, WEB_RULES } from './en-web.ts';
import { replaceMapped, trimMapped, verbatim, type MappedText } from './mapped.ts';
import { cardinal, decimal, digits, integerWords, ordinalOfWords, year } from './number-words.ts';

const DECADES = ['', 'tens', 'twenties', 'thirties', 'forties', 'fifties', 'sixties', 'seventies', 'eighties', 'nineties'];

// 911 is said digit by digit wherever it stands; other short numbers (999, 112, 311 ...) only after "call", "dial" ...
const EMERGENCY_NUMBERS = ['911'];
const CALL_CONTEXT = /\b(?:call|calls|called|calling|dial|dialed|dialled|dialing|dialling|ring|phone|text|extension|ext\.?)\s+$/i;

// Words before a four-digit number that make it a year ("in 1066", "since 1999", "the year 2000").
const YEAR_CONTEXT =
  /\b(?:in|since|by|until|till|from|before|after|during|of|circa|year|around|through|to|summer|winter|spring|autumn|fall|early|late|mid|born|founded|established|built|est\.|c\.|ca\.|between|and|than|as of|back in)\s*$/i;
const YEAR_AFTER = /^\s*(?:AD|BC|BCE|CE|A\.D\.|B\.C\.)\b/;
// "the 2024 election", "a 1967 Mustang": a year before a noun (a plural noun counts: "the 2000 runners").
const DETERMINER_BEFORE = /\b(?:the|a|an|this|that|her|his|their|our|its|my|your)\s+$/i;

// Verbs after a sentence-opening year: "2020 saw", "1989 brought".
const YEAR_VERBS = new Set('was is will saw sees brought brings marked marks began begins ended ends had has became proved'.split(' '));

/** "runners" and "athletes" are plurals; "census", "class", "crisis" and "physics" are not. */
const isPlural = (word: string): boolean => /s$/.test(word) && !/(?:ss|us|is|ics)$/.test(word);

function numberWithYearContext(n: string, before: string, after: string): string {
  const v = Number(n);
  if (n.length !== 4 || v < 1000 || v > 2099) return integerWords(n);
  if (YEAR_CONTEXT.test(before) || YEAR_AFTER.test(after) || /(?:©|\([Cc]\)|[Cc]opyright)\s*$/.test(before)) return year(v);
  const next = /^\s+([\p{L}]+)/u.exec(after)?.[1];
  if (v >= 1800 && DETERMINER_BEFORE.test(before) && next !== undefined && (/^\p{Lu}/u.test(next) || !isPlural(next))) return year(v);
  // "2024 was a leap year.", "1999, the year it ended": a sentence that opens with a year.
  if (v >= 1500 && /(?:^|[.!?]\s+)["'“‘(]*$/.test(before) && (/^\s*,/.test(after) || (next !== undefined && YEAR_VERBS.has(next))))
    return year(v);
  return integerWords(n);
}

const RULES: readonly Rule[] = [
  // A true minus sign, or a dash standing for one, before a number is a minus: "−12 °C", "–5".
  [/(?<=^|[\s(=:[])[−–](?=\s?[\d$£€¥₹.])/g, () => '-'],
  // Addresses on the web and in mail come first: their dots, slashes and digits are not numbers.
  ...WEB_RULES,
  ...NOTATION_RULES,
  ...QUALIFIER_RULES,
  ...BEFORE_NUMBER_RULES,
  // Phone numbers, read digit by digit in their groups: +44 20 7946 0958, 1-800-555-0199, (555) 123-4567, 555-1234.
  // Also spaced groups ("555 123 4567") and trunk-prefixed national numbers ("020 7946 0958", "07700 900123").
  [
    /\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,4}(?![\d.,]\d)|(?:\b1[-.])?(?:\(\d{3}\)\s?|\b\d{3}[-.])\d{3}[-.]\d{4}\b|\b\d{3}-\d{4}\b|\b\d{3} \d{3} \d{4}\b|\b0\d{2,4} \d{3,4} ?\d{3,4}\b|\b0\d{4} \d{6}\b/g,
    (m) =>
      `${m[0].startsWith('+') ? 'plus ' : ''}${m[0]
        .split(/[^\d]+/)
        .filter(Boolean)
        .map(digits)
        .join(', ')}`,
  ],
  // Vanity numbers: "1-800-FLOWERS".
  [
    /(?:\b1[-.\s])?\b(8\d\d)[-.\s]([A-Z]{3,}(?:-?[A-Z0-9]+)*)\b/g,
    (m) =>
      `${m[0].startsWith('1') ? 'one, ' : ''}${m[1][0] === '8' && m[1].endsWith('00') ? 'eight hundred' : digits(m[1])}, ${m[2].replace(/-/g, ' ').toLowerCase()}`,
  ],
  ...VERSION_RULES,
  ...DATE_RULES,
  // Ratios: 16:9, 4:3, 1:100 (a colon that is not a time).
  [/(?<![\w:.])(\d+):(\d+)(?![\w:]|\.\d)/g, (m) => `${integerWords(m[1])} to ${integerWords(m[2])}`],
  ...STREET_RULES,
  ...LETTERED_RULES,
  ...DURATION_RULES,
  ...MEASURE_RULES,
  ...PLACE_RULES,
  // Quarters: "Q3 2024" is "Q three twenty twenty-four".
  [/\bQ([1-4])\b(?:\s+(\d{4})\b)?/g, (m) => `Q ${cardinal(Number(m[1]))}${m[2] ? ` ${year(Number(m[2]))}` : ''}`],
  // Ordinals: 1st, 22nd, 103rd, 4th.
  [/\b(\d{1,3}(?:,\d{3})*|\d+)(st|nd|rd|th)\b/gi, (m) => ordinalOfWords(integerWords(m[1].replace(/,/g, '')))],
  // Decades: 1990s, 2000s, '80s, 80s.
  [
    /(?:\b(\d{2})|'|’|\b)(\d)0'?s\b/g,
    (m) => {
      const century = m[1] ? Number(m[1]) : undefined;
      const tens = Number(m[2]);
      if (century === undefined) return DECADES[tens] || undefined;
      if (century < 10) return undefined;
      if (tens === 0) return century % 10 === 0 ? `${cardinal(century / 10)} thousands` : `${cardinal(century)} hundreds`;
      return `${cardinal(century)} ${DECADES[tens]}`;
    },
  ],
  // A year written short: "the class of '99".
  [/(?<![\w'’])['’](\d{2})(?![\w'’]|\.\d)/g, (m) => (m[1].startsWith('0') ? `oh ${cardinal(Number(m[1][1]))}` : cardinal(Number(m[1])))],
  // Emergency numbers anywhere, short numbers after "call"/"dial": digit by digit.
  [
    /(?<![\w.,$£€¥₹-])(\d{3,5})(?![\w]|[.,]\d)/g,
    (m, text) => (EMERGENCY_NUMBERS.includes(m[1]) || CALL_CONTEXT.test(lookBehind(text, m.index)) ? digits(m[1]) : undefined),
  ],
  // Ranges and scores: 5-10, 1990-1995, pages 10–12, won 102–98.
  [
    /(?<![\w.-])(\d+)(?:-|\s?[–—]\s?)(\d+)(?![\w-]|\.\d)/g,
    (m, text) => {
      const before = lookBehind(text, m.index);
      const a = numberWithYearContext(m[1], before, '');
      const asYears = m[1].length === 4 && m[2].length === 4 && Number(m[1]) >= 1000 && Number(m[2]) <= 2099;
      // "2010-11": the second year written short.
      const shortYear =
        m[1].length === 4 && m[2].length === 2 && Number(m[1]) >= 1000 && Number(m[1]) <= 2099 && Number(m[2]) > Number(m[1]) % 100;
      if (shortYear) return `${year(Number(m[1]))} to ${cardinal(Number(m[2]))}`;
      return `${asYears ? year(Number(m[1])) : a} to ${asYears ? year(Number(m[2])) : integerWords(m[2])}`;
    },
  ],
  ...ROMAN_RULES,
  ...ABBREVIATION_RULES,
  ...MONTH_ABBREVIATION_RULES,
  ...MATH_RULES,
  ...SLASH_RULES,
  // Leading-dot decimals: "only .5 percent".
  [/(?<![\w.])\.(\d+)(?!\.?\d)/g, (m) => decimal(m[0])],
  // Plain numbers, with thousands separators or decimals; four-digit years after "in", "since", ...
  [
    /(?<![\d.])(?:(?<=^|[\s([])(-))?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d)/g,
    (m, text) => {
      const before = lookBehind(text, m.index);
      const after = text.slice(m.index + m[0].length);
      const int = m[2].replace(/,/g, '');
      const words = m[3] ? decimal(int + m[3]) : numberWithYearContext(int, before, after);
      // Keep "mp3" and "4K" apart from the letters around them.
      const pre = /\p{L}$/u.test(before) ? ' ' : '';
      const post = /^\p{L}/u.test(after) ? ' ' : '';
      return `${pre}${m[1] ? 'minus ' : ''}${words}${post}`;
    },
  ],
  ...SYMBOL_RULES,
  ...INITIALISM_RULES,
];

/** Spells out numbers, money, dates, times, percentages and common abbreviations in English text. */
export function normalizeEnglish(text: string): string {
  return normalizeEnglishMapped(verbatim(text)).text;
}

/** normalizeEnglish, keeping each output character's source span ("five dollars" stands for "$5"). */
export function normalizeEnglishMapped(text: MappedText): MappedText {
  let t = replaceMapped(text, /[\u00a0\u2000-\u200b\u202f]/g, () => ' ');
  for (const [re, fn] of RULES) t = replaceMapped(t, re, fn);
  t = replaceMapped(t, /,(?=\p{L})/gu, () => ', ');
  t = replaceMapped(t, /[ \t]+/g, (m) => (m[0] === ' ' ? undefined : ' '));
  t = replaceMapped(t, / +([,.;:!?])/g, (m) => m[1]);
  return trimMapped(t);
}
