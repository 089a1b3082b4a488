// Capital letters the engines would otherwise read each their own way ("US" as the pronoun, "WHO" as a word,
// "iPhone" letter by letter or as one odd word): every upper-case initialism and mixed-case name is decided
// here. An initialism is spelled ("U S", "F B I") unless people say it as a word ("NASA", "NATO", "PIN");
// a mixed-case name is split where its case changes ("YouTube" is "You Tube", "iOS" "I O S"); a run of
// shouted words ("DO NOT ENTER") is read as words. Which capitals are words comes from the CMU pronouncing
// dictionary: a word it says as letters ("FBI", "HTML") is an initialism, one it says as a word ("NASA",
// "WARNING") is a word; short ones and ones it lacks are spelled unless listed below.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Rule } from './en-context.ts';

// Said as words though short or missing from the dictionary.
const SAID_AS_WORDS = new Set(
  (
    'PIN RAM ROM SIM GIF LAN WAN COVID CAPTCHA UEFA ASEAN AWOL SCOTUS GAAP DEFCON TASER SONAR NASCAR MENSA ' +
    'FEMA OSHA HUD DARPA NORAD ICANN INTERPOL FIFA NATO NASA OPEC UNICEF UNESCO LASER RADAR SCUBA SWAT ' +
    'ZIP POTUS FLOTUS SIDS MERS SARS ASCII PAYE ISO'
  ).split(' '),
);

// Initialisms said some other way.
const SAID_OTHERWISE: Readonly<Record<string, string>> = {
  OK: 'Okay',
  IEEE: 'I triple E',
  AAA: 'triple A',
  JPEG: 'J peg',
  JPG: 'J peg',
  WWW: 'W W W',
  NAACP: 'N double A C P',
};

// Mixed-case names said some other way than split at their case changes.
const NAMES: Readonly<Record<string, string>> = {
  PhD: 'P H D',
  PhDs: "P H D's",
  SaaS: 'sass',
  PaaS: 'pass',
  IaaS: 'I A A S',
  LaTeX: 'lay tech',
  GmbH: 'G M B H',
  PostgreSQL: 'postgres Q L',
  tvOS: 'T V O S',
  iPadOS: 'I Pad O S',
  McAfee: 'McAfee',
};

// Names that keep their inner capital: "McDonald", "MacArthur", "DiCaprio", "LeBron", "O'Neill".
const NAME_PREFIX = /^(?:Mc|Mac|De|Di|Da|Du|Le|La|Van|Von|Del|St|Fitz|Al|El)(?=\p{Lu}\p{Ll}+(?:['’]s)?$)/u;

const LETTER_PHONES: Readonly<Record<string, string>> = {
  A: 'EY',
  B: 'B IY',
  C: 'S IY',
  D: 'D IY',
  E: 'IY',
  F: 'EH F',
  G: 'JH IY',
  H: 'EY CH',
  I: 'AY',
  J: 'JH EY',
  K: 'K EY',
  L: 'EH L',
  M: 'EH M',
  N: 'EH N',
  O: 'OW',
  P: 'P IY',
  Q: 'K Y UW',
  R: 'AA R',
  S: 'EH S',
  T: 'T IY',
  U: 'Y UW',
  V: 'V IY',
  W: 'D AH B AH L Y UW',
  X: 'EH K S',
  Y: 'W AY',
  Z: 'Z IY',
};

// The dictionary's text, read once the first time a long capitalised word needs it; a word is looked up in
// it where it is (the 4.7 MB module takes seconds to evaluate as JavaScript, a search in its text microseconds).
let dictionary: string | undefined;
const known = new Map<string, string | null>();

/** The CMU dictionary's first pronunciation of a lower-case word, without stress marks; null when it lacks it. */
function pronunciation(word: string): string | null {
  const cached = known.get(word);
  if (cached !== undefined) return cached;
  dictionary ??= readFileSync(createRequire(import.meta.url).resolve('cmu-pronouncing-dictionary'), 'utf8');
  const key = `\n  "${word}": "`;
  const at = dictionary.indexOf(key);
  const phones = at < 0 ? null : dictionary.slice(at + key.length, dictionary.indexOf('"', at + key.length)).replace(/\d/g, '');
  known.set(word, phones);
  return phones;
}

/** Whether the dictionary says a capitalised word as a word (not letter by letter, and not missing). */
function isDictionaryWord(caps: string): boolean {
  const phones = pronunciation(caps.toLowerCase());
  if (phones === null) return false;
  const spelled = [...caps].map((c) => LETTER_PHONES[c] ?? '').join(' ');
  return phones !== spelled;
}

const spell = (caps: string): string => caps.split('').join(' ');
const asWord = (caps: string): string => caps[0] + caps.slice(1).toLowerCase();

/** How an upper-case run of letters is said, outside a shouted passage. */
export function sayCapitals(caps: string): string {
  const other = SAID_OTHERWISE[caps];
  if (other !== undefined) return other;
  if (SAID_AS_WORDS.has(caps)) return asWord(caps);
  if (caps.length >= 4 && isDictionaryWord(caps)) return asWord(caps);
  return spell(caps);
}

/** A mixed-case name split where its case changes, each part said as a word or letter by letter. */
function sayMixed(name: string): string {
  const fixed = NAMES[name];
  if (fixed !== undefined) return fixed;
  if (NAME_PREFIX.test(name)) return name;
  const parts = name.match(/\p{Lu}{2,}(?!\p{Ll})|\p{Lu}\p{Ll}+|\p{Ll}+|\p{Lu}/gu) ?? [name];
  return parts
    .map((p) => {
      if (p.length === 1) return p.toUpperCase();
      if (/^\p{Lu}+$/u.test(p)) return sayCapitals(p);
      return p;
    })
    .join(' ');
}

// A run of capitals with what may follow it: a plural or possessive "s" ("CEOs", "NASA's").
const CAPITALS = /(?<![\p{L}\p{M}'’])(\p{Lu}{2,})(s|['’]s)?(?![\p{L}\p{M}])/gu;
// Mixed case: a capital after a small letter ("iPhone", "YouTube"), or capitals before small ones ("PhD" is
// covered by the first, "OKs" by neither).
const MIXED = /(?<![\p{L}\p{M}'’])(?=[\p{L}'’]*\p{Ll}\p{Lu})[\p{L}]+(?:['’]s)?(?![\p{L}\p{M}])/gu;

/** Whether a word of capitals is shouted text rather than an initialism: the dictionary says it as a word. */
const shoutedWord = (caps: string): boolean => caps.length >= 2 && !SAID_OTHERWISE[caps] && isDictionaryWord(caps);

/**
 * Whether the capitals at `index` stand in a shouted passage: two or more words of capitals in a row that the
 * dictionary all says as words ("GET OUT"), or a run with one such word of four letters or more that is no
 * initialism ("DO NOT ENTER", "WARNING: HIGH VOLTAGE").
 */
function inShoutedRun(text: string, index: number, length: number): boolean {
  const left = /(?:\p{Lu}{2,}[\s,:;!?.'’-]+)*$/u.exec(text.slice(Math.max(0, index - 80), index))?.[0] ?? '';
  const right = /^(?:[\s,:;!?.'’-]+\p{Lu}{2,})*/u.exec(text.slice(index + length, index + length + 80))?.[0] ?? '';
  const words = `${left}${text.slice(index, index + length)}${right}`.match(/\p{Lu}+(?![\p{Ll}])/gu) ?? [];
  const caps = words.filter((w) => w.length >= 2);
  if (caps.length < 2) return false;
  if (caps.every(shoutedWord)) return true;
  return caps.some((w) => w.length >= 4 && !SAID_AS_WORDS.has(w) && shoutedWord(w));
}

/** Read last, after every rule that knows a unit, a currency, a state or a Roman numeral has taken its capitals. */
export const INITIALISM_RULES: readonly Rule[] = [
  [
    MIXED,
    (m) => (/^\p{Lu}+(?:['’]s)?$/u.test(m[0]) ? undefined : sayMixed(m[0].replace(/['’]s$/, '')) + (/['’]s$/.test(m[0]) ? "'s" : '')),
  ],
  [
    CAPITALS,
    (m, text) => {
      const caps = m[1];
      const tail = m[2] === undefined ? '' : "'s";
      if (inShoutedRun(text, m.index, m[0].length)) {
        return `${shoutedWord(caps) || SAID_AS_WORDS.has(caps) ? asWord(caps) : sayCapitals(caps)}${m[2] ?? ''}`;
      }
      const said = sayCapitals(caps);
      return `${said}${said.includes(' ') || said.length === 1 ? tail : (m[2] ?? '')}`;
    },
  ],
];
