// English text normalization: turns what people write (numbers, money, dates, times, abbreviations)
// into what a speaker says, so both engines read it the same way. Rules run in order; each one consumes
// its pattern entirely, so later, more general rules (plain numbers) never see it.
import { replaceMapped, trimMapped, verbatim, type MappedText } from './mapped.ts';
import { cardinal, decimal, digits, fraction, integerWords, ordinal, ordinalOfWords, year } from './number-words.ts';

/** A written number: "8,849", "3.5", ".5", "12". */
const NUM = '(?:\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?|\\.\\d+)';

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];
const MONTH_ALT =
  'Jan(?:uary|\\.)?|Feb(?:ruary|\\.)?|Mar(?:ch|\\.)?|Apr(?:il|\\.)?|May|June?\\.?|July?\\.?|Aug(?:ust|\\.)?|Sept?(?:ember|\\.)?|Oct(?:ober|\\.)?|Nov(?:ember|\\.)?|Dec(?:ember|\\.)?';

function monthOf(token: string): string | undefined {
  const t = token.replace('.', '').toLowerCase();
  return MONTHS.find((m) => m.toLowerCase().startsWith(t.slice(0, 3)));
}

function dateWords(y: number | undefined, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const md = `${MONTHS[m - 1]} ${ordinal(d)}`;
  return y === undefined ? md : `${md}, ${year(y)}`;
}

interface Currency {
  one: string;
  many: string;
  subOne: string;
  subMany: string;
}
const CURRENCIES: Readonly<Record<string, Currency>> = {
  $: { one: 'dollar', many: 'dollars', subOne: 'cent', subMany: 'cents' },
  '£': { one: 'pound', many: 'pounds', subOne: 'penny', subMany: 'pence' },
  '€': { one: 'euro', many: 'euros', subOne: 'cent', subMany: 'cents' },
  '¥': { one: 'yen', many: 'yen', subOne: 'sen', subMany: 'sen' },
  '₹': { one: 'rupee', many: 'rupees', subOne: 'paisa', subMany: 'paise' },
};
const CURRENCY_CODES: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', INR: '₹' };
const SCALE_WORDS: Readonly<Record<string, string>> = {
  thousand: 'thousand', k: 'thousand', million: 'million', m: 'million', mn: 'million',
  billion: 'billion', b: 'billion', bn: 'billion', trillion: 'trillion', t: 'trillion', tn: 'trillion',
};
const SCALE = '(?:\\s?(thousand|million|billion|trillion)\\b|(bn|mn|tn|[kKmMbBtT])\\b)';

function money(symbol: string, amount: string, scale: string | undefined): string {
  const c = CURRENCIES[symbol];
  const plain = amount.replace(/,/g, '');
  if (scale) return `${decimal(plain)} ${SCALE_WORDS[scale.toLowerCase()]} ${c.many}`;
  const [int, frac = ''] = plain.split('.');
  // More than two decimals is not a price in cents: read it as a plain decimal amount.
  if (frac.length > 2) return `${decimal(plain)} ${c.many}`;
  const units = Number(int || '0');
  const cents = frac === '' ? 0 : Number(frac.padEnd(2, '0'));
  const main = `${integerWords(int || '0')} ${units === 1 ? c.one : c.many}`;
  const sub = `${cardinal(cents)} ${cents === 1 ? c.subOne : c.subMany}`;
  if (cents === 0) return main;
  if (units === 0) return sub;
  return `${main} and ${sub}`;
}

/** "$5-10": the currency is said once, after the second amount ("five to ten dollars"). */
function moneyRange(symbol: string, from: string, to: string | undefined, scale: string | undefined): string {
  if (to === undefined) return money(symbol, from, scale);
  const first = /\.\d/.test(from) && !scale ? money(symbol, from, undefined) : decimal(from);
  return `${first} to ${money(symbol, to, scale)}`;
}

// Unit words after a number: [written forms (a regex alternative), singular, plural]. Case matters:
// "m" is meters, "M" a million; "s" and "in" are left alone (too often plain words).
const UNITS: readonly (readonly [string, string, string])[] = [
  ['km/h|kph', 'kilometer per hour', 'kilometers per hour'], ['mph', 'mile per hour', 'miles per hour'],
  ['km', 'kilometer', 'kilometers'], ['cm', 'centimeter', 'centimeters'], ['mm', 'millimeter', 'millimeters'],
  ['m', 'meter', 'meters'], ['mi', 'mile', 'miles'], ['yds?', 'yard', 'yards'], ['ft', 'foot', 'feet'],
  ['kg', 'kilogram', 'kilograms'], ['mg', 'milligram', 'milligrams'], ['g', 'gram', 'grams'], ['lbs?', 'pound', 'pounds'],
  ['oz', 'ounce', 'ounces'], ['ml|mL', 'milliliter', 'milliliters'], ['L', 'liter', 'liters'],
  ['hrs?|h', 'hour', 'hours'], ['mins?', 'minute', 'minutes'], ['secs?', 'second', 'seconds'], ['ms', 'millisecond', 'milliseconds'],
  ['KB', 'kilobyte', 'kilobytes'], ['MB', 'megabyte', 'megabytes'], ['GB', 'gigabyte', 'gigabytes'], ['TB', 'terabyte', 'terabytes'],
  ['kHz', 'kilohertz', 'kilohertz'], ['MHz', 'megahertz', 'megahertz'], ['GHz', 'gigahertz', 'gigahertz'], ['Hz', 'hertz', 'hertz'],
  ['kWh', 'kilowatt hour', 'kilowatt hours'], ['kW', 'kilowatt', 'kilowatts'],
  ['°C', 'degree Celsius', 'degrees Celsius'], ['°F', 'degree Fahrenheit', 'degrees Fahrenheit'], ['°', 'degree', 'degrees'],
];
const UNIT_ALT = UNITS.map((u) => u[0]).join('|');

// Titles before a name: never the end of a sentence.
const TITLES: Readonly<Record<string, string>> = {
  Mr: 'Mister', Mrs: 'Missus', Ms: 'Miz', Prof: 'Professor', Gen: 'General', Capt: 'Captain', Lt: 'Lieutenant',
  Sgt: 'Sergeant', Rev: 'Reverend', Hon: 'Honorable', Gov: 'Governor', Sen: 'Senator', Rep: 'Representative',
  Mt: 'Mount', Ft: 'Fort',
};
// Abbreviations that may also end a sentence (the period is kept when a capitalised word or the end follows).
const TRAILING: Readonly<Record<string, string>> = {
  etc: 'et cetera', Inc: 'Incorporated', Ltd: 'Limited', Corp: 'Corporation', Co: 'Company', Jr: 'Junior',
  Sr: 'Senior', Ave: 'Avenue', Blvd: 'Boulevard', Rd: 'Road', Dept: 'Department', approx: 'approximately',
  vs: 'versus', Univ: 'University',
};
// Weekdays written short: expanded when a date follows ("Mon. Jan. 5"), where the period never ends a sentence.
const WEEKDAYS: Readonly<Record<string, string>> = {
  Mon: 'Monday', Tue: 'Tuesday', Tues: 'Tuesday', Wed: 'Wednesday', Thu: 'Thursday', Thur: 'Thursday',
  Thurs: 'Thursday', Fri: 'Friday', Sat: 'Saturday', Sun: 'Sunday',
};
// Month abbreviations with a period outside a date ("in Jan. we met"); "Mar." and "May" need no care here.
const MONTH_ABBREVIATIONS = 'Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec';

// Slash forms that are neither fractions nor dates.
const SLASH_IDIOMS: Readonly<Record<string, string>> = {
  '24/7': 'twenty-four seven', '9/11': 'nine eleven', '50/50': 'fifty-fifty', '20/20': 'twenty-twenty',
};

// 911 is said digit by digit wherever it stands; other short numbers (999, 112, 311 ...) only after "call", "dial" ...
const EMERGENCY_NUMBERS = ['911'];
const CALL_CONTEXT = /\b(?:call|calls|called|calling|dial|dialed|dialled|dialing|dialling|ring|phone|text|extension|ext\.?)\s+$/i;

// Capitalised words that usually open a sentence rather than name someone.
const SENTENCE_STARTERS = new Set(
  'A An The It Its He She We They I You This That These Those There Here His Her Our My Your Their In On At But And So Then If When After Before'.split(' '),
);

const YEAR_CONTEXT = /\b(?:in|since|by|until|till|from|before|after|during|of|circa|year|around|through|to|summer|winter|spring|autumn|fall|early|late|mid)\s*$/i;
// Words after which "3/15" is a date rather than a fraction.
const DATE_CONTEXT = /\b(?:on|by|until|till|from|since|before|after|due|through|starting|ending|dated)\s+$/i;

const DECADES = ['', 'tens', 'twenties', 'thirties', 'forties', 'fifties', 'sixties', 'seventies', 'eighties', 'nineties'];

type Rule = readonly [RegExp, (m: RegExpExecArray, text: string) => string | undefined];

/** Keeps a sentence-ending period that an expanded abbreviation swallowed. */
function endsSentence(text: string, end: number): boolean {
  return /^\s*(?:$|["'”’)\]]*\s+[A-Z])/.test(text.slice(end));
}

function numberWithYearContext(n: string, before: string): string {
  const v = Number(n);
  if (n.length === 4 && v >= 1100 && v <= 2099 && YEAR_CONTEXT.test(before)) return year(v);
  return integerWords(n);
}

/** "1" is singular; "1.0", "0.5" and everything else take the plural. */
const isOne = (n: string): boolean => n === '1' || n === '-1';

/** The meridiem as two letters (both engines spell "A M"), keeping a sentence-ending period it swallowed. */
function meridiem(letter: string, matched: string, text: string, end: number): string {
  return ` ${letter.toUpperCase()} M${matched.endsWith('.') && endsSentence(text, end) ? '.' : ''}`;
}

function slashDateOrFraction(a: string, b: string, before: string): string {
  const num = Number(a);
  const den = Number(b);
  const date = dateWords(undefined, num, den);
  if (date && (DATE_CONTEXT.test(before) || den > 12)) return date;
  if (den === 0) return `${cardinal(num)} over zero`;
  return fraction(num, den);
}

const RULES: readonly Rule[] = [
  // Phone numbers, read digit by digit in their groups: +44 20 7946 0958, 1-800-555-0199, (555) 123-4567, 555-1234.
  [/\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,4}(?![\d.,]\d)|(?:\b1[-.])?(?:\(\d{3}\)\s?|\b\d{3}[-.])\d{3}[-.]\d{4}\b|\b\d{3}-\d{4}\b/g, (m) =>
    `${m[0].startsWith('+') ? 'plus ' : ''}${m[0].split(/[^\d]+/).filter(Boolean).map(digits).join(', ')}`],
  // "Mon. Jan. 5": a short weekday before a date is said in full, and its period ends nothing.
  [new RegExp(`\\b(${Object.keys(WEEKDAYS).join('|')})\\.(?=,?\\s+(?:${MONTH_ALT}|\\d))`, 'g'), (m) => WEEKDAYS[m[1]]],
  // ISO dates.
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => dateWords(Number(m[1]), Number(m[2]), Number(m[3]))],
  // US slash dates (month first).
  [/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (m) => dateWords(Number(m[3]), Number(m[1]), Number(m[2]))],
  // "24/7", "9/11".
  [/(?<![\w/.])(\d+\/\d+)(?![\w/]|\.\d)/g, (m) => SLASH_IDIOMS[m[1]]],
  // Mixed numbers: "1 1/2 cups" is "one and a half cups".
  [/(?<![\w/.,])(\d+)\s(\d+)\/(\d+)(?![\w/]|\.\d)/g, (m) => {
    const num = Number(m[2]);
    const den = Number(m[3]);
    if (den === 0 || num >= den) return undefined;
    return `${cardinal(Number(m[1]))} and ${num === 1 && den === 2 ? 'a half' : fraction(num, den)}`;
  }],
  // "by 3/15" is a date; "1/2 cup" and "3/4" are fractions.
  [/(?<![\w/.,])(\d{1,3})\/(\d{1,3})(?![\w/]|\.\d)/g, (m, text) => slashDateOrFraction(m[1], m[2], text.slice(0, m.index))],
  // "November 21, 2026", "Nov. 21st".
  [new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, 'g'), (m) => {
    const month = monthOf(m[1]);
    const d = Number(m[2]);
    if (!month || d < 1 || d > 31) return undefined;
    return `${month} ${ordinal(d)}${m[3] ? `, ${year(Number(m[3]))}` : ''}`;
  }],
  // "21 November 2026", "21st of November", "the 4th of July", "the 5th May" (one "the", whether written or not).
  [new RegExp(`(?:\\b([Tt]he)\\s+)?\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_ALT})(?![a-z])(?:,?\\s+(\\d{4})\\b)?`, 'g'), (m, text) => {
    const month = monthOf(m[3]);
    const d = Number(m[2]);
    if (!month || d < 1 || d > 31) return undefined;
    // "June." and "Dec." may carry the sentence's own period.
    const period = !m[4] && m[3].endsWith('.') && endsSentence(text, m.index + m[0].length) ? '.' : '';
    return `${m[1] ?? 'the'} ${ordinal(d)} of ${month}${m[4] ? `, ${year(Number(m[4]))}` : ''}${period}`;
  }],
  // Month and year: "in March 2024".
  [new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{4})\\b`, 'g'), (m) => {
    const month = monthOf(m[1]);
    return month ? `${month} ${year(Number(m[2]))}` : undefined;
  }],
  // Times: 3:30, 3:05 pm, 9:30pm, 15:45, 10:30:15 a.m.
  [/\b([01]?\d|2[0-3]):([0-5]\d)(?!\d)(?::([0-5]\d))?(?:\s*([AaPp])\.?\s?[Mm]\b\.?)?/g, (m, text) => {
    const h = Number(m[1]);
    const min = Number(m[2]);
    let words: string;
    if (min === 0) words = m[4] ? cardinal(h) : h > 12 || h === 0 ? `${cardinal(h)} hundred` : `${cardinal(h)} o'clock`;
    else words = `${cardinal(h)} ${min < 10 ? `oh ${cardinal(min)}` : cardinal(min)}`;
    if (m[3]) words += ` and ${cardinal(Number(m[3]))} seconds`;
    return words + (m[4] ? meridiem(m[4], m[0], text, m.index + m[0].length) : '');
  }],
  // Hours with a meridiem and no minutes: 9am, 9 a.m., 12 PM.
  [/\b(1[0-2]|0?[1-9])\s?([AaPp])\.?\s?[Mm]\b\.?/g, (m, text) =>
    `${cardinal(Number(m[1]))}${meridiem(m[2], m[0], text, m.index + m[0].length)}`],
  // Ratios: 16:9, 4:3, 1:100 (a colon that is not a time).
  [/(?<![\w:.])(\d+):(\d+)(?![\w:]|\.\d)/g, (m) => `${integerWords(m[1])} to ${integerWords(m[2])}`],
  // Money, the symbol first: $5.20, £3, €1,200.50, $2.5 million, $3bn, $5-10, $5–$10.
  [new RegExp(`(-)?([$£€¥₹])\\s?(${NUM})(?:\\s?[-–]\\s?\\2?(${NUM}))?${SCALE}?`, 'g'), (m) =>
    `${m[1] ? 'minus ' : ''}${moneyRange(m[2], m[3], m[4], m[5] ?? m[6])}`],
  // Money, the symbol or code after: "3 €", "20£", "100 EUR".
  [new RegExp(`(?<![\\w.,])(${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?([$£€¥₹]|\\b(?:${Object.keys(CURRENCY_CODES).join('|')})\\b)`, 'g'), (m) =>
    moneyRange(CURRENCY_CODES[m[3]] ?? m[3], m[1], m[2], undefined)],
  // A currency code first: "USD 5", "EUR 1.50".
  [new RegExp(`\\b(${Object.keys(CURRENCY_CODES).join('|')})\\s?(${NUM})(?![\\w.]\\d)`, 'g'), (m) => money(CURRENCY_CODES[m[1]], m[2], undefined)],
  // Cents sign.
  [/\b(\d+)\s?¢/g, (m) => `${cardinal(Number(m[1]))} ${m[1] === '1' ? 'cent' : 'cents'}`],
  // Percentages, also ranges ("5-10%") and leading dots (".5%").
  [new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?%`, 'g'), (m) =>
    `${decimal(m[1])}${m[2] ? ` to ${decimal(m[2])}` : ''} percent`],
  // Measurements, singular for one: "8,849 m", "1 kg", "5–10 kg", "2 hrs", "20°C".
  [new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?[-–]\\s?(${NUM}))?\\s?(${UNIT_ALT})(?![\\w°])`, 'g'), (m) => {
    const unit = UNITS.find((u) => new RegExp(`^(?:${u[0]})$`).test(m[3]));
    if (!unit) return undefined;
    const amount = m[2] ? `${decimal(m[1])} to ${decimal(m[2])}` : decimal(m[1]);
    return `${amount} ${!m[2] && isOne(m[1]) ? unit[1] : unit[2]}`;
  }],
  // Scale words after a number: "7.8 bn", "5k", "2.5M" (a lower-case "m" is meters, above).
  [new RegExp(`(?<![\\w.,])(-?${NUM})(?:\\s?(bn|mn|tn)|([kMB]))(?![\\w])`, 'g'), (m) =>
    `${decimal(m[1])} ${SCALE_WORDS[(m[2] ?? m[3]).toLowerCase()]}`],
  // Quarters: "Q3 2024" is "Q three twenty twenty-four".
  [/\bQ([1-4])\b(?:\s+(\d{4})\b)?/g, (m) => `Q ${cardinal(Number(m[1]))}${m[2] ? ` ${year(Number(m[2]))}` : ''}`],
  // Ordinals: 1st, 22nd, 103rd, 4th.
  [/\b(\d{1,3}(?:,\d{3})*|\d+)(st|nd|rd|th)\b/gi, (m) => ordinalOfWords(integerWords(m[1].replace(/,/g, '')))],
  // Decades: 1990s, 2000s, '80s, 80s.
  [/(?:\b(\d{2})|'|’|\b)(\d)0'?s\b/g, (m) => {
    const century = m[1] ? Number(m[1]) : undefined;
    const tens = Number(m[2]);
    if (century === undefined) return DECADES[tens] || undefined;
    if (century < 10) return undefined;
    if (tens === 0) return century % 10 === 0 ? `${cardinal(century / 10)} thousands` : `${cardinal(century)} hundreds`;
    return `${cardinal(century)} ${DECADES[tens]}`;
  }],
  // Emergency numbers anywhere, short numbers after "call"/"dial": digit by digit.
  [/(?<![\w.,$£€¥₹-])(\d{3,5})(?![\w]|[.,]\d)/g, (m, text) =>
    EMERGENCY_NUMBERS.includes(m[1]) || CALL_CONTEXT.test(text.slice(0, m.index)) ? digits(m[1]) : undefined],
  // Ranges: 5-10, 1990-1995, pages 10–12.
  [/(?<![\w.-])(\d+)(?:-|\s?–\s?)(\d+)(?![\w-]|\.\d)/g, (m, text) => {
    const before = text.slice(0, m.index);
    const a = numberWithYearContext(m[1], before);
    const asYears = m[1].length === 4 && m[2].length === 4 && Number(m[1]) >= 1100 && Number(m[2]) <= 2099;
    return `${asYears ? year(Number(m[1])) : a} to ${asYears ? year(Number(m[2])) : integerWords(m[2])}`;
  }],
  // Doctor vs Drive, Saint vs Street: a title when a name follows ("Dr. Smith", "Mount St. Helens"),
  // a street when the next word starts a new sentence ("Baker St. It was late") or nothing follows.
  [/\b(Dr|St)\.(?!\w)/g, (m, text) => {
    const end = m.index + m[0].length;
    const next = /^\s+([A-Z][\w']*)/.exec(text.slice(end))?.[1];
    if (next !== undefined && !SENTENCE_STARTERS.has(next)) return m[1] === 'Dr' ? 'Doctor' : 'Saint';
    return `${m[1] === 'Dr' ? 'Drive' : 'Street'}${endsSentence(text, end) ? '.' : ''}`;
  }],
  [new RegExp(`\\b(${Object.keys(TITLES).join('|')})\\.(?=\\s)`, 'g'), (m) => TITLES[m[1]]],
  [new RegExp(`\\b(${MONTH_ABBREVIATIONS})\\.(?!\\w)`, 'g'), (m, text) => {
    const end = m.index + m[0].length;
    const next = /^\s+([A-Z][\w']*)/.exec(text.slice(end))?.[1];
    const ends = endsSentence(text, end) && (next === undefined || SENTENCE_STARTERS.has(next));
    return `${monthOf(m[1])}${ends ? '.' : ''}`;
  }],
  [new RegExp(`\\b(${Object.keys(TRAILING).join('|')})\\.(?!\\w)`, 'g'), (m, text) =>
    `${TRAILING[m[1]]}${endsSentence(text, m.index + m[0].length) ? '.' : ''}`],
  [/\be\.g\.(?!\w)/gi, () => 'for example'],
  [/\bi\.e\.(?!\w)/gi, () => 'that is'],
  [/\b[Nn]o\.\s?(?=\d)/g, () => 'number '],
  [/#(?=\d)/g, () => 'number '],
  [/\b([ap])\.m\.(?!\w)/gi, (m, text) => `${m[1].toUpperCase()} M${endsSentence(text, m.index + m[0].length) ? '.' : ''}`],
  // Initialisms: U.S., U.K., D.C. are spelled.
  [/\b((?:[A-Z]\.){2,})(?!\w)/g, (m, text) =>
    `${m[1].replace(/\./g, ' ').trim()}${endsSentence(text, m.index + m[0].length) ? '.' : ''}`],
  // Symbols.
  [/\s&\s/g, () => ' and '],
  [/(?<=\d)\s?\+\s?(?=\d)/g, () => ' plus '],
  [/(?<=\d)\s?=\s?(?=\d)/g, () => ' equals '],
  [/(?<=\d)\s?[x×]\s?(?=\d)/g, () => ' by '],
  [/@/g, () => ' at '],
  // Dotted sequences (versions, addresses): 1.2.3.
  [/\b\d+(?:\.\d+){2,}\b/g, (m) => m[0].split('.').map(integerWords).join(' dot ')],
  // Leading-dot decimals: "only .5 percent".
  [/(?<![\w.])\.(\d+)(?!\.?\d)/g, (m) => decimal(m[0])],
  // Plain numbers, with thousands separators or decimals; four-digit years after "in", "since", ...
  [/(?<![\d.])(?:(?<=^|[\s([])(-))?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d)/g, (m, text) => {
    const before = text.slice(0, m.index);
    const int = m[2].replace(/,/g, '');
    const words = m[3] ? decimal(int + m[3]) : numberWithYearContext(int, before);
    // Keep "mp3" and "4K" apart from the letters around them.
    const pre = /\p{L}$/u.test(before) ? ' ' : '';
    const post = /^\p{L}/u.test(text.slice(m.index + m[0].length)) ? ' ' : '';
    return `${pre}${m[1] ? 'minus ' : ''}${words}${post}`;
  }],
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
