// Scientific notation: "1.2e-5", "6.02E23", "3×10^8", "2.5 × 10^6", "10⁶" and "2^10" are powers, read as
// "... times ten to the power of ..." before the quantity rules see their digits (the exponent would otherwise
// be dropped, or read as a letter and a number).
import type { Rule } from './en-context.ts';
import { UNIT_ALT, unitOf } from './en-units.ts';
import { cardinal, decimal } from './number-words.ts';

const SUPERSCRIPTS: Readonly<Record<string, string>> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁻': '-',
  '⁺': '+',
};

const MANTISSA = '(-?\\d+(?:\\.\\d+)?)';

/** "-5" -> "minus five", "+4" -> "four". */
function exponent(sign: string, n: string): string {
  return `${sign === '-' || sign === '−' || sign === '⁻' ? 'minus ' : ''}${cardinal(Number(n))}`;
}

// A unit after the power is said after it, in the plural: "9.11e-31 kg", "3×10^8 m/s".
const UNIT_AFTER = `(?:\\s?(${UNIT_ALT})(?![\\w°²³/]))?`;

function withUnit(words: string, unit: string | undefined): string {
  const u = unit === undefined ? undefined : unitOf(unit);
  return u ? `${words} ${u.many}` : `${words}${unit ?? ''}`;
}

const power = (base: string, sign: string, n: string): string => `${base} to the power of ${exponent(sign, n)}`;
const signed = (m: string): string => (m.startsWith('-') ? `minus ${decimal(m.slice(1))}` : decimal(m));

export const NOTATION_RULES: readonly Rule[] = [
  // "1.2e-5", "6.02E23", "2.0e+4": a mantissa, an e and the power of ten.
  [
    new RegExp(`(?<![\\w.])${MANTISSA}[eE]([+\\-−]?)(\\d{1,3})(?![\\w]|\\.\\d)${UNIT_AFTER}`, 'g'),
    (m) => withUnit(`${signed(m[1])} times ${power('ten', m[2], m[3])}`, m[4]),
  ],
  // "3×10^8", "2.5 x 10^-6", "4 * 10^(-3)", "3 × 10⁸".
  [
    new RegExp(
      `(?<![\\w.])${MANTISSA}\\s?[×x*·]\\s?10(?:\\s?\\^\\s?\\(?([+\\-−]?)(\\d{1,3})\\)?|([⁺⁻]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+))(?![\\w]|\\.\\d)${UNIT_AFTER}`,
      'g',
    ),
    (m) => {
      const digits = m[3] ?? [...m[5]].map((c) => SUPERSCRIPTS[c]).join('');
      return withUnit(`${signed(m[1])} times ${power('ten', m[2] ?? m[4], digits)}`, m[6]);
    },
  ],
  // A power alone: "10^9", "2^10", "10⁶", "10^-3".
  [
    /(?<![\w.^])(\d+(?:\.\d+)?)(?:\s?\^\s?\(?([+\-−]?)(\d{1,3})\)?|([⁺⁻]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+))(?![\w]|\.\d)/g,
    (m) => {
      // "5²" and "2³" are squared and cubed (en-symbols.ts).
      if (m[5] === '²' || m[5] === '³') return undefined;
      const digits = m[3] ?? [...m[5]].map((c) => SUPERSCRIPTS[c]).join('');
      return power(decimal(m[1]), m[2] ?? m[4], digits);
    },
  ],
];
