// Quantities: money, percentages, units of measure, scale words and multipliers after English numbers. An amount
// used as an adjective takes the singular ("a $5,000 prize", "a 12 V battery"); "1" takes the singular too.
import { isAttributive, keptPeriod, lookBehind, type Rule } from './en-context.ts';
import { CODE_ALT, CURRENCY_CODES, CURRENCY_SIGNS, moneyRange, money, SCALE_WORDS, SIGN_ALT, UNIT_ALT, unitOf } from './en-units.ts';
import { cardinal, decimal } from './number-words.ts';

/** A written number: "8,849", "3.5", ".5", "12". */
const NUM = '(?:\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?|\\.\\d+)';
const SCALE = '(?:\\s?(thousand|million|billion|trillion)\\b|(bn|mn|tn|[kKmMbBtT])\\b)';

/** "1" is singular; "1.0", "0.5" and everything else take the plural. */
const isOne = (n: string): boolean => n === '1' || n === '-1';

// "in" is an inch only where a length is being given: "12 in.", "10 in tall", "5 ft 10 in", "a 55 in TV".
const INCH_AFTER =
  /^\s+(?:tall|wide|long|high|deep|thick|across|diameter|screen|display|monitor|TV|laptop|pipe|board|square|x|by|×)\b|^\s*[,;)]|^\s*$|^\s*×/;

export const MEASURE_RULES: readonly Rule[] = [
  // Money, the sign first: $5.20, £3, €1,200.50, $2.5 million, $3bn, $5-10, $5–$10, CHF after: see below.
  [
    new RegExp(`(-)?(?<!\\p{L})(${SIGN_ALT})\\s?(${NUM})(?:\\s?[-–]\\s?(?:${SIGN_ALT})?(${NUM}))?${SCALE}?`, 'gu'),
    (m, text) => {
      const cur = CURRENCY_SIGNS[m[2]];
      const adjective = !m[1] && isAttributive(text, m.index, m.index + m[0].length);
      return `${m[1] ? 'minus ' : ''}${moneyRange(cur, m[3], m[4], m[5] ?? m[6], adjective)}`;
    },
  ],
  // Money, the sign or code after: "3 €", "20£", "100 EUR", "40 CHF".
  [
    new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?(${SIGN_ALT}|\\b(?:${CODE_ALT})\\b)`, 'g'),
    (m, text) => {
      const cur = CURRENCY_SIGNS[m[3]] ?? CURRENCY_CODES[m[3]];
      const minus = m[1].startsWith('-');
      const amount = m[1].replace(/^-/, '');
      return `${minus ? 'minus ' : ''}${moneyRange(cur, amount, m[2], undefined, isAttributive(text, m.index, m.index + m[0].length))}`;
    },
  ],
  // A currency code first: "USD 5", "CHF 12.50", "EUR 3 million".
  [
    new RegExp(`\\b(${CODE_ALT})\\s?(${NUM})(?![\\w.]\\d)${SCALE}?`, 'g'),
    (m, text) => money(CURRENCY_CODES[m[1]], m[2], m[3] ?? m[4], isAttributive(text, m.index, m.index + m[0].length)),
  ],
  // Cents sign.
  [/\b(\d+)\s?¢/g, (m) => `${cardinal(Number(m[1]))} ${m[1] === '1' ? 'cent' : 'cents'}`],
  // Percentages, also ranges ("5-10%") and leading dots (".5%").
  [
    new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?%`, 'g'),
    (m) => `${decimal(m[1])}${m[2] ? ` to ${decimal(m[2])}` : ''} percent`,
  ],
  // Feet and inches with primes: 5'10", 6′.
  [
    /(?<![\w.])(\d+)\s?['′]\s?(\d+(?:\.\d+)?)\s?(?:"|″|'')/g,
    (m) => `${cardinal(Number(m[1]))} ${m[1] === '1' ? 'foot' : 'feet'} ${decimal(m[2])} ${isOne(m[2]) ? 'inch' : 'inches'}`,
  ],
  [
    /(?<![\w.])(\d+(?:\.\d+)?)\s?(?:″|")(?=\s+\p{L})/gu,
    (m, text) => {
      const adjective = isAttributive(text, m.index, m.index + m[0].length);
      return `${decimal(m[1])} ${adjective || isOne(m[1]) ? 'inch' : 'inches'}`;
    },
  ],
  // Inches written "in": only after a number and where a length is meant.
  [
    new RegExp(`(?<![\\w.,])(${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?in(\\.)?(?![\\w])`, 'g'),
    (m, text) => {
      const end = m.index + m[0].length;
      const after = text.slice(end);
      const before = lookBehind(text, m.index);
      const afterFeet = /(?:\bft\.?|\bfeet|\bfoot)\s*$/.test(before);
      if (!m[3] && !afterFeet && !INCH_AFTER.test(after)) return undefined;
      if (m[3] && !afterFeet && /^\s+\d/.test(after)) return undefined;
      const adjective = isAttributive(text, m.index, end);
      const amount = m[2] ? `${decimal(m[1])} to ${decimal(m[2])}` : decimal(m[1]);
      return `${amount} ${adjective || (!m[2] && isOne(m[1])) ? 'inch' : 'inches'}${m[3] ? keptPeriod(m[0], text, end) : ''}`;
    },
  ],
  // Measurements, singular for one and before a noun: "8,849 m", "1 kg", "5–10 kg", "2 hrs", "20°C", "a 10-km run".
  // A unit over a unit is "per" ("5 mg/kg"); a slash before a word is read later ("24 hrs/day": hours per day).
  [
    new RegExp(
      `(?<![\\w.,])(-?${NUM})(?:\\s?[-–]\\s?(${NUM}))?(\\s?|-)(${UNIT_ALT})(?:\\/(${UNIT_ALT}))?(\\.)?(?![\\w°²³]|\\/(?![a-z]{2,}))`,
      'g',
    ),
    (m, text) => {
      const unit = unitOf(m[4]);
      const per = m[5] === undefined ? undefined : unitOf(m[5]);
      if (!unit || (m[5] !== undefined && !per)) return undefined;
      const end = m.index + m[0].length;
      // "s" is seconds only with a space or after a decimal ("9.58 s", "9.58s"): "5s" is not.
      if (m[4] === 's' && m[3] === '' && !m[1].includes('.')) return undefined;
      const adjective = m[3] === '-' || isAttributive(text, m.index, end);
      const amount = m[2] ? `${decimal(m[1])} to ${decimal(m[2])}` : decimal(m[1]);
      const name = adjective || (!m[2] && isOne(m[1])) ? unit.one : unit.many;
      // A unit's own period ("15 gal.") comes back only where it also ended the sentence.
      return `${amount} ${name}${per ? ` per ${per.one}` : ''}${m[6] ? keptPeriod(m[0], text, end) : ''}`;
    },
  ],
  // Races are said by their letter: "a 5K run", "the 10k race".
  [/\b(\d{1,3})[kK](?=\s+(?:runs?|races?|walks?|fun runs?)\b)/g, (m) => `${cardinal(Number(m[1]))} K`],
  // Scale words after a number: "7.8 bn", "5k", "2.5M" (a lower-case "m" is meters, above).
  [
    new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?(bn|mn|tn)|([kMB]))(?![\\w])`, 'g'),
    (m) => `${decimal(m[1])} ${SCALE_WORDS[(m[2] ?? m[3]).toLowerCase()]}`,
  ],
  // Multipliers: "2x faster", "10× zoom", "1.5x speed".
  [/(?<![\w.,])(\d+(?:\.\d+)?)\s?[x×](?=\s+[a-z])/g, (m) => `${decimal(m[1])} times`],
];
