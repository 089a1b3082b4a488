// English abbreviations with a period, by how they are used: titles before a name ("Col. Mustard"), words
// before a number ("Fig. 3", "pp. 45", "ext. 204"), and words that may stand anywhere and may end a sentence
// ("approx.", "Inc.", "Ave."). Units after numbers ("12 in.", "8 oz.") are read with the units, not here.
import { endsSentence, keptPeriod, likelyEndsSentence, SENTENCE_STARTERS, type Rule } from './en-context.ts';

// Titles before a name: never the end of a sentence.
const TITLES: Readonly<Record<string, string>> = {
  Mr: 'Mister',
  Mrs: 'Missus',
  Ms: 'Miz',
  Messrs: 'Messieurs',
  Prof: 'Professor',
  Gen: 'General',
  Col: 'Colonel',
  Lt: 'Lieutenant',
  Capt: 'Captain',
  Maj: 'Major',
  Sgt: 'Sergeant',
  Cpl: 'Corporal',
  Pvt: 'Private',
  Adm: 'Admiral',
  Cmdr: 'Commander',
  Cdr: 'Commander',
  Brig: 'Brigadier',
  Gov: 'Governor',
  Sen: 'Senator',
  Rep: 'Representative',
  Pres: 'President',
  Supt: 'Superintendent',
  Insp: 'Inspector',
  Det: 'Detective',
  Fr: 'Father',
  Msgr: 'Monsignor',
  Rev: 'Reverend',
  Hon: 'Honorable',
  Amb: 'Ambassador',
  Atty: 'Attorney',
  Mt: 'Mount',
  Ft: 'Fort',
  Pt: 'Point',
  Mme: 'Madame',
  Mlle: 'Mademoiselle',
  Pfc: 'Private First Class',
  Asst: 'Assistant',
  Assoc: 'Associate',
};

// Words before a number: "Fig. 3", "pp. 45–52", "ext. 204", "Apt. 4B". Keys are lower case; the period is optional.
const BEFORE_NUMBER: Readonly<Record<string, string>> = {
  no: 'number',
  nos: 'numbers',
  fig: 'figure',
  figs: 'figures',
  vol: 'volume',
  vols: 'volumes',
  pp: 'pages',
  sec: 'section',
  secs: 'sections',
  ch: 'chapter',
  chap: 'chapter',
  art: 'article',
  ext: 'extension',
  apt: 'apartment',
  rm: 'room',
  ste: 'suite',
  bldg: 'building',
  eq: 'equation',
  eqn: 'equation',
  para: 'paragraph',
  pg: 'page',
  pgs: 'pages',
  tel: 'telephone',
  ph: 'phone',
  ex: 'example',
  nr: 'number',
  p: 'page',
  fl: 'floor',
  flr: 'floor',
};
// Of these, the ones that need their period ("p. 12": a bare "p" or "ex" is too often something else).
const NEEDS_PERIOD = new Set(['p', 'ph', 'ex', 'art', 'no', 'nos', 'tel', 'nr', 'sec', 'secs', 'ch', 'fl']);

// Abbreviations that may stand anywhere and may end a sentence (the period is kept when the sentence ends there).
// Keys are lower case; a capital on the written form carries over ("Approx." -> "Approximately").
const ANYWHERE: Readonly<Record<string, string>> = {
  etc: 'et cetera',
  inc: 'Incorporated',
  ltd: 'Limited',
  corp: 'Corporation',
  co: 'Company',
  jr: 'Junior',
  sr: 'Senior',
  bros: 'Brothers',
  ave: 'Avenue',
  blvd: 'Boulevard',
  rd: 'Road',
  ln: 'Lane',
  hwy: 'Highway',
  pkwy: 'Parkway',
  sq: 'Square',
  ct: 'Court',
  pl: 'Place',
  ter: 'Terrace',
  cres: 'Crescent',
  hts: 'Heights',
  mtn: 'Mountain',
  dept: 'Department',
  univ: 'University',
  assn: 'Association',
  govt: 'Government',
  intl: 'International',
  natl: 'National',
  approx: 'approximately',
  vs: 'versus',
  viz: 'namely',
  cf: 'compare',
  ca: 'circa',
  est: 'established',
  misc: 'miscellaneous',
  incl: 'including',
  excl: 'excluding',
  avg: 'average',
  ref: 'reference',
  ea: 'each',
  doz: 'dozen',
  qty: 'quantity',
  pkg: 'package',
  mfg: 'manufacturing',
  mgr: 'manager',
  asst: 'assistant',
  temp: 'temperature',
  max: 'maximum',
  min: 'minimum',
  esq: 'Esquire',
  attn: 'attention',
  encl: 'enclosure',
  qtr: 'quarter',
  inst: 'Institute',
};
// Written lower case only when the expansion is a common noun; proper-noun ones need their capital.
const PROPER = new Set([
  'inc',
  'ltd',
  'corp',
  'co',
  'jr',
  'sr',
  'bros',
  'ave',
  'blvd',
  'rd',
  'ln',
  'hwy',
  'pkwy',
  'sq',
  'ct',
  'pl',
  'ter',
  'cres',
  'hts',
  'mtn',
  'esq',
  'inst',
]);

function withCase(written: string, expansion: string): string {
  return /^\p{Lu}/u.test(written) ? expansion[0].toUpperCase() + expansion.slice(1) : expansion;
}

const keys = (o: Readonly<Record<string, string>>): string => Object.keys(o).join('|');

/** Words before a number, read before the number rules turn the number into words. */
export const BEFORE_NUMBER_RULES: readonly Rule[] = [
  // "Fig. 3", "pp. 45-52", "ext. 204", "Apt 4B", "No. 1".
  [
    new RegExp(`\\b(${keys(BEFORE_NUMBER)})(\\.?)\\s?(?=#?\\d)`, 'gi'),
    (m) => {
      const key = m[1].toLowerCase();
      if (m[2] === '' && NEEDS_PERIOD.has(key)) return undefined;
      // "No. 5" is "number five" in any case; the others keep a capital they were written with ("Fig. 3").
      return `${key === 'no' || key === 'nos' || key === 'nr' ? BEFORE_NUMBER[key] : withCase(m[1], BEFORE_NUMBER[key])} `;
    },
  ],
  [/#(?=\d)/g, () => 'number '],
];

// Written with a period by the rules below rather than in the tables above ("Dr.", "v.", "c. 1850", "2nd ed.",
// "et al.", "e.g.", "Ph.D.", "p.m.").
const RULE_WORDS = ['dr', 'st', 'v', 'c', 'ed', 'edn', 'al', 'aka', 'e.g', 'i.e', 'a.k.a', 'ph.d', 'a.m', 'p.m'];

const WITH_PERIOD = new Set([
  ...Object.keys(TITLES).map((k) => k.toLowerCase()),
  ...Object.keys(BEFORE_NUMBER),
  ...Object.keys(ANYWHERE),
  ...RULE_WORDS,
]);

/**
 * Whether `word` (without its final period, any case) is one of the abbreviations read here: a period after it
 * may be the abbreviation's, not a sentence end ("Dr." before a name, "Fig." before a number, "approx." anywhere).
 */
export function isAbbreviation(word: string): boolean {
  return WITH_PERIOD.has(word.toLowerCase());
}

export const ABBREVIATION_RULES: readonly Rule[] = [
  // Doctor vs Drive, Saint vs Street: a title when a name follows ("Dr. Smith", "Mount St. Helens"),
  // a street when the next word starts a new sentence ("Baker St. It was late") or nothing follows.
  [
    /\b(Dr|St)\.(?!\w)/g,
    (m, text) => {
      const end = m.index + m[0].length;
      const next = /^\s+([A-Z][\w']*)/.exec(text.slice(end))?.[1];
      if (next !== undefined && !SENTENCE_STARTERS.has(next)) return m[1] === 'Dr' ? 'Doctor' : 'Saint';
      return `${m[1] === 'Dr' ? 'Drive' : 'Street'}${endsSentence(text, end) ? '.' : ''}`;
    },
  ],
  [new RegExp(`\\b(${keys(TITLES)})\\.(?=\\s)`, 'g'), (m) => TITLES[m[1]]],
  [
    new RegExp(`\\b(${keys(ANYWHERE)})\\.(?!\\w)`, 'gi'),
    (m, text) => {
      const key = m[1].toLowerCase();
      const expansion = ANYWHERE[key];
      if (!expansion) return undefined;
      // "inc." in lower case is rarely the company suffix, nor "CO." (Colorado): proper nouns need their written
      // capital and no more.
      if (PROPER.has(key) && !/^\p{Lu}\p{Ll}*$/u.test(m[1])) return undefined;
      return `${PROPER.has(key) ? expansion : withCase(m[1], expansion)}${likelyEndsSentence(text, m.index + m[0].length) ? '.' : ''}`;
    },
  ],
  // Written without their period, these are still not words: "Lakers vs Celtics", "approx 3 km".
  [/\b(vs|approx|etc|aka)\b(?!\.)/g, (m) => ({ vs: 'versus', approx: 'approximately', etc: 'et cetera', aka: 'also known as' })[m[1]]],
  [/\b(?:(int)['’]l|(gov)['’]t)\b/gi, (m) => (m[1] ? withCase(m[1], 'international') : withCase(m[2], 'government'))],
  // "Roe v. Wade": a case name.
  [/(?<=\p{Lu}[\p{L}'’.-]*\s)v\.?(?=\s+\p{Lu})/gu, () => 'versus'],
  // "c. 1850" is circa; "2nd ed." an edition.
  [/\bc\.\s?(?=\d{3,4}\b)/g, () => 'circa '],
  [
    /(?<=\b(?:\d+(?:st|nd|rd|th)|first|second|third|[a-z]+th)\s)(ed|edn)\.(?!\w)/g,
    (m, text) => `edition${keptPeriod(m[0], text, m.index + m[0].length)}`,
  ],
  [/\be\.g\.(?!\w)/gi, () => 'for example'],
  [/\bi\.e\.(?!\w)/gi, () => 'that is'],
  [/\ba\.k\.a\.?(?!\w)/gi, () => 'also known as'],
  [/\bet al\.(?!\w)/g, (m, text) => `et al${keptPeriod(m[0], text, m.index + m[0].length)}`],
  [/\bPh\.D\.(?!\w)/g, (m, text) => `P H D${keptPeriod(m[0], text, m.index + m[0].length)}`],
  [/\b([ap])\.m\.(?!\w)/gi, (m, text) => `${m[1].toUpperCase()} M${likelyEndsSentence(text, m.index + m[0].length) ? '.' : ''}`],
  // Initialisms: U.S., U.K., D.C. are spelled.
  [
    /\b((?:[A-Z]\.){2,})(?!\w)/g,
    (m, text) => `${m[1].replace(/\./g, ' ').trim()}${likelyEndsSentence(text, m.index + m[0].length) ? '.' : ''}`,
  ],
];
