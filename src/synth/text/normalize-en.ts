// English text normalization: turns what people write (numbers, money, dates, times, abbreviations)
// into what a speaker says, so both engines read it the same way. Rules run in order; each one consumes
// its pattern entirely, so later, more general rules (plain numbers) never see it.
import { cardinal, decimal, digits, integerWords, ordinal, ordinalOfWords, year } from './number-words.ts';

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
const SCALE_WORDS: Readonly<Record<string, string>> = {
  thousand: 'thousand', k: 'thousand', million: 'million', m: 'million', mn: 'million',
  billion: 'billion', b: 'billion', bn: 'billion', trillion: 'trillion', t: 'trillion', tn: 'trillion',
};

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

// Unit words after a number: [written forms, singular, plural].
const UNITS: readonly (readonly [string, string, string])[] = [
  ['km', 'kilometer', 'kilometers'], ['cm', 'centimeter', 'centimeters'], ['mm', 'millimeter', 'millimeters'],
  ['kg', 'kilogram', 'kilograms'], ['mg', 'milligram', 'milligrams'], ['lbs?', 'pound', 'pounds'],
  ['oz', 'ounce', 'ounces'], ['mph', 'mile per hour', 'miles per hour'], ['km/h|kph', 'kilometer per hour', 'kilometers per hour'],
  ['ft', 'foot', 'feet'], ['ms', 'millisecond', 'milliseconds'], ['KB', 'kilobyte', 'kilobytes'], ['MB', 'megabyte', 'megabytes'],
  ['GB', 'gigabyte', 'gigabytes'], ['TB', 'terabyte', 'terabytes'], ['Hz', 'hertz', 'hertz'], ['kHz', 'kilohertz', 'kilohertz'],
  ['MHz', 'megahertz', 'megahertz'], ['GHz', 'gigahertz', 'gigahertz'], ['°C', 'degree Celsius', 'degrees Celsius'],
  ['°F', 'degree Fahrenheit', 'degrees Fahrenheit'], ['°', 'degree', 'degrees'],
];

// Titles before a name: never the end of a sentence.
const TITLES: Readonly<Record<string, string>> = {
  Mr: 'Mister', Mrs: 'Missus', Ms: 'Miz', Prof: 'Professor', Gen: 'General', Capt: 'Captain', Lt: 'Lieutenant',
  Sgt: 'Sergeant', Rev: 'Reverend', Hon: 'Honorable', Gov: 'Governor', Sen: 'Senator', Rep: 'Representative',
};
// Abbreviations that may also end a sentence (the period is kept when a capitalised word or the end follows).
const TRAILING: Readonly<Record<string, string>> = {
  etc: 'et cetera', Inc: 'Incorporated', Ltd: 'Limited', Corp: 'Corporation', Co: 'Company', Jr: 'Junior',
  Sr: 'Senior', Ave: 'Avenue', Blvd: 'Boulevard', Rd: 'Road', Dept: 'Department', approx: 'approximately',
  vs: 'versus', Mt: 'Mount', Ft: 'Fort', Univ: 'University',
};

// Capitalised words that usually open a sentence rather than name someone.
const SENTENCE_STARTERS = new Set(
  'A An The It Its He She We They I You This That These Those There Here His Her Our My Your Their In On At But And So Then If When After Before'.split(' '),
);

const YEAR_CONTEXT = /\b(?:in|since|by|until|till|from|before|after|during|of|circa|year|around|through|to|summer|winter|spring|autumn|fall|early|late|mid)\s*$/i;

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

const RULES: readonly Rule[] = [
  // Phone numbers: (555) 123-4567, 555-123-4567, 555-1234 are read digit by digit in groups.
  [/(?:\(\d{3}\)\s?|\b\d{3}[-.])\d{3}[-.]\d{4}\b|\b\d{3}-\d{4}\b/g, (m) => m[0].split(/[^\d]+/).filter(Boolean).map(digits).join(', ')],
  // ISO dates.
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => dateWords(Number(m[1]), Number(m[2]), Number(m[3]))],
  // US slash dates (month first).
  [/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (m) => dateWords(Number(m[3]), Number(m[1]), Number(m[2]))],
  // "November 21, 2026", "Nov. 21st".
  [new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, 'g'), (m) => {
    const month = monthOf(m[1]);
    const d = Number(m[2]);
    if (!month || d < 1 || d > 31) return undefined;
    return `${month} ${ordinal(d)}${m[3] ? `, ${year(Number(m[3]))}` : ''}`;
  }],
  // "21 November 2026", "21st of November".
  [new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_ALT})(?![a-z])(?:,?\\s+(\\d{4})\\b)?`, 'g'), (m) => {
    const month = monthOf(m[2]);
    const d = Number(m[1]);
    if (!month || d < 1 || d > 31) return undefined;
    return `the ${ordinal(d)} of ${month}${m[3] ? `, ${year(Number(m[3]))}` : ''}`;
  }],
  // Month and year: "in March 2024".
  [new RegExp(`\\b(${MONTH_ALT})\\s+(\\d{4})\\b`, 'g'), (m) => {
    const month = monthOf(m[1]);
    return month ? `${month} ${year(Number(m[2]))}` : undefined;
  }],
  // Times: 3:30, 3:05 pm, 15:45, 10:30:15 a.m.
  [/\b([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?:\s*([AaPp])\.?\s?[Mm]\b\.?)?/g, (m, text) => {
    const h = Number(m[1]);
    const min = Number(m[2]);
    const meridiem = m[4] ? ` ${m[4].toUpperCase()} M` : '';
    let words: string;
    if (min === 0) words = meridiem ? cardinal(h) : h > 12 || h === 0 ? `${cardinal(h)} hundred` : `${cardinal(h)} o'clock`;
    else words = `${cardinal(h)} ${min < 10 ? `oh ${cardinal(min)}` : cardinal(min)}`;
    if (m[3]) words += ` and ${cardinal(Number(m[3]))} seconds`;
    const end = m.index + m[0].length;
    return words + meridiem + (meridiem && m[0].endsWith('.') && endsSentence(text, end) ? '.' : '');
  }],
  // Money: $5.20, £3, €1,200.50, $2.5 million, $3bn.
  [/(-)?([$£€¥₹])\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(thousand|million|billion|trillion)\b|(bn|mn|tn|[kKmMbBtT])\b)?/g, (m) =>
    `${m[1] ? 'minus ' : ''}${money(m[2], m[3], m[4] ?? m[5])}`],
  // Cents sign.
  [/\b(\d+)\s?¢/g, (m) => `${cardinal(Number(m[1]))} ${m[1] === '1' ? 'cent' : 'cents'}`],
  // Percentages.
  [/(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\s?%/g, (m) => `${decimal(m[1])} percent`],
  // Measurements.
  [new RegExp(`(?<![\\w.])(-?\\d+(?:\\.\\d+)?)\\s?(${UNITS.map((u) => u[0]).join('|')})(?![\\w])`, 'g'), (m) => {
    const unit = UNITS.find((u) => new RegExp(`^(?:${u[0]})$`).test(m[2]));
    if (!unit) return undefined;
    return `${decimal(m[1])} ${m[1] === '1' ? unit[1] : unit[2]}`;
  }],
  // Ordinals: 1st, 22nd, 103rd, 4th.
  [/\b(\d{1,3}(?:,\d{3})*|\d+)(st|nd|rd|th)\b/gi, (m) => ordinalOfWords(integerWords(m[1].replace(/,/g, '')))],
  // Decades: 1990s, 2000s, '80s.
  [/(?:\b(\d{2})|'|’)(\d)0'?s\b/g, (m) => {
    const century = m[1] ? Number(m[1]) : undefined;
    const tens = Number(m[2]);
    if (century === undefined) return DECADES[tens] || undefined;
    if (tens === 0) return century % 10 === 0 ? `${cardinal(century / 10)} thousands` : `${cardinal(century)} hundreds`;
    return `${cardinal(century)} ${DECADES[tens]}`;
  }],
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


function applyRule(text: string, [re, fn]: Rule): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    const replacement = fn(m, text);
    if (replacement === undefined) continue;
    out += text.slice(last, m.index) + replacement;
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

/** Spells out numbers, money, dates, times, percentages and common abbreviations in English text. */
export function normalizeEnglish(text: string): string {
  let t = text.replace(/[\u00a0\u2000-\u200b\u202f]/g, ' ');
  for (const rule of RULES) t = applyRule(t, rule);
  return t.replace(/,(?=\p{L})/gu, ', ').replace(/[ \t]+/g, ' ').replace(/ +([,.;:!?])/g, '$1').trim();
}
