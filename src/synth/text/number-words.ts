// English number reading: cardinals, ordinals, years, digit strings.

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion', 'quadrillion'];

/** Largest integer read as a number; longer digit strings are read digit by digit. */
export const MAX_CARDINAL = 999_999_999_999_999;

function below100(n: number): string {
  if (n < 20) return ONES[n];
  const t = TENS[Math.floor(n / 10)];
  return n % 10 === 0 ? t : `${t}-${ONES[n % 10]}`;
}

function below1000(n: number): string {
  const h = Math.floor(n / 100);
  const r = n % 100;
  if (h === 0) return below100(r);
  return r === 0 ? `${ONES[h]} hundred` : `${ONES[h]} hundred ${below100(r)}`;
}

/** "one thousand two hundred thirty-four"; integers up to MAX_CARDINAL, negatives get "minus". */
export function cardinal(n: number): string {
  if (!Number.isInteger(n)) throw new RangeError(`not an integer: ${n}`);
  if (n < 0) return `minus ${cardinal(-n)}`;
  if (n > MAX_CARDINAL) return digits(String(n));
  if (n < 1000) return below1000(n);
  const parts: string[] = [];
  for (let scale = 0; n > 0; scale++, n = Math.floor(n / 1000)) {
    const group = n % 1000;
    if (group > 0) parts.unshift(SCALES[scale] ? `${below1000(group)} ${SCALES[scale]}` : below1000(group));
  }
  return parts.join(' ');
}

const IRREGULAR_ORDINALS: Readonly<Record<string, string>> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

/** Turns the last word of a cardinal reading into its ordinal: "twenty-one" -> "twenty-first". */
export function ordinalOfWords(words: string): string {
  const m = /([a-z]+)$/.exec(words);
  if (!m) return words;
  const last = m[1];
  const head = words.slice(0, words.length - last.length);
  const ord = IRREGULAR_ORDINALS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return head + ord;
}

export function ordinal(n: number): string {
  return ordinalOfWords(cardinal(n));
}

/** Years the way people say them: 1999 "nineteen ninety-nine", 1905 "nineteen oh five", 2008 "two thousand eight". */
export function year(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 9999) return cardinal(n);
  const hi = Math.floor(n / 100);
  const lo = n % 100;
  if (n < 1000 || n % 1000 === 0 || (n > 2000 && n < 2010)) {
    return cardinal(n);
  }
  if (lo === 0) return `${below100(hi)} hundred`;
  if (lo < 10) return `${below100(hi)} oh ${ONES[lo]}`;
  return `${below100(hi)} ${below100(lo)}`;
}

const ORDINAL_FRACTION: Readonly<Record<number, readonly [string, string]>> = { 2: ['half', 'halves'], 4: ['quarter', 'quarters'] };

/** "1/2" -> "one half", "3/4" -> "three quarters", "5/8" -> "five eighths". */
export function fraction(numerator: number, denominator: number): string {
  const [one, many] = ORDINAL_FRACTION[denominator] ?? [ordinal(denominator), `${ordinal(denominator)}s`];
  return `${cardinal(numerator)} ${numerator === 1 ? one : many}`;
}

/**
 * Numbers that name rather than count (a model, a street number, a room, a flight), said in pairs the way
 * people say them: 747 "seven forty-seven", 101 "one oh one", 380 "three eighty", 1600 "sixteen hundred",
 * 8086 "eighty eighty-six", 2000 "two thousand". Leading zeros and long strings are read digit by digit.
 */
export function nominal(s: string): string {
  if ((s.length > 1 && s.startsWith('0')) || s.length > 5 || !/^\d+$/.test(s)) return digits(s);
  const n = Number(s);
  if (s.length <= 2) return cardinal(n);
  // Five digits: "12345" is twelve three forty-five; "12000" and "12045" are read as numbers.
  if (s.length === 5) return n % 1000 < 100 ? cardinal(n) : `${below100(Math.floor(n / 1000))} ${nominal(s.slice(2))}`;
  const hi = Math.floor(n / 100);
  const lo = n % 100;
  if (s.length === 4 && n % 1000 === 0) return cardinal(n);
  const head = s.length === 3 ? ONES[hi] : below100(hi);
  if (lo === 0) return `${head} hundred`;
  return lo < 10 ? `${head} oh ${ONES[lo]}` : `${head} ${below100(lo)}`;
}

/** "zero zero seven". */
export function digits(s: string): string {
  return [...s]
    .filter((c) => c >= '0' && c <= '9')
    .map((c) => ONES[Number(c)])
    .join(' ');
}

/** "3.14" -> "three point one four", ".5" -> "point five"; the integer part may carry thousands separators. */
export function decimal(s: string): string {
  const negative = s.startsWith('-');
  const [int, frac] = s.replace(/^-/, '').replace(/,/g, '').split('.');
  // A written leading dot is read the way it is written: ".5" is "point five", not "zero point five".
  const reading = int === '' ? `point ${digits(frac ?? '')}` : frac ? `${integerWords(int)} point ${digits(frac)}` : integerWords(int);
  return negative ? `minus ${reading}` : reading;
}

/** An integer digit string: leading zeros and very long strings are read digit by digit. */
export function integerWords(s: string): string {
  if (s.length > 1 && s.startsWith('0')) return digits(s);
  if (s.length > 15) return digits(s);
  return cardinal(Number(s));
}
