// Free-text voice search: a MiniSearch index over what a user would type — names, languages in English and
// in their own words, accents and regions, gender words, descriptions and tags.
import MiniSearch from 'minisearch';
import { MAX_SEARCH_QUERY_CHARS } from '../schemas/field-limits.ts';
import { byQuality, isNatural } from './natural-rank.ts';
import type { Gender, Voice } from './voice.ts';

export const DEFAULT_SEARCH_LIMIT = 50;

/** Well-formed search text: a string with something besides spaces, at most 200 characters, no control characters. */
export function isValidSearchQuery(q: unknown): q is string {
  return typeof q === 'string' && q.trim() !== '' && q.length <= MAX_SEARCH_QUERY_CHARS && !/\p{Cc}/u.test(q);
}

export interface VoiceSearch {
  /**
   * Voices best matching `q`, best first. Words combine as AND; when no voice has them all, as OR.
   * `visible` hides voices the caller may not see (other users' own voices).
   */
  search(q: string, visible?: (v: Voice) => boolean, limit?: number): Voice[];
  /** Adds a voice, or replaces the one with the same id. */
  add(v: Voice): void;
  remove(id: string): void;
  has(id: string): boolean;
}

const GENDER_WORDS: Readonly<Record<Gender, string>> = {
  female: 'female woman women feminine lady',
  male: 'male man men masculine gentleman',
  neutral: 'neutral androgynous nonbinary ungendered',
};

// Words that say nothing about which voice is meant ("a british voice with a scottish accent").
const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'in',
  'with',
  'for',
  'voice',
  'voices',
  'accent',
  'speaker',
  'speaking',
  'sounding',
]);

const FIELDS = ['name', 'languageNames', 'language', 'tags', 'gender', 'description', 'engine'] as const;
type Field = (typeof FIELDS)[number];
type SearchDoc = { id: string } & Record<Field, string>;

// Accent and region words (tags) outrank language names so that "scottish" finds Scottish English before
// Scottish Gaelic; a name alone is a weak signal because most espeak voices are named after their language.
const BOOST: Record<Field, number> = {
  tags: 3,
  name: 1.5,
  languageNames: 2,
  gender: 2,
  language: 1.5,
  engine: 1,
  description: 0.5,
};

// Neural voices (VOICES_DIR) sound the most natural, then flite's; among equally good matches they come first.
const NATURAL_ENGINE_BOOST: Readonly<Partial<Record<string, number>>> = { piper: 1.5, kokoro: 1.5, flite: 1.25 };

/**
 * Words that ask for how a voice sounds rather than what it is called: the natural (neural) voices come first for
 * them, then the best-sounding built-in ones (tagged "natural"), never voices that only look alike ("neural" is
 * not "Nepali").
 */
const NATURAL_WORDS = new Set(['natural', 'neural', 'human', 'humanlike', 'realistic', 'lifelike', 'nn', 'ai']);

const tokenize: (text: string) => string[] = MiniSearch.getDefault('tokenize');

/** Lower-cased, accents stripped (so "lucia" finds "Lucía"), stop words dropped. */
function processTerm(term: string): string | null {
  const t = term.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return t === '' || STOP_WORDS.has(t) ? null : t;
}

const englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const languageWordsCache = new Map<string, string>();

/**
 * The names a language goes by: the catalog's English name, Intl's regional name ("Brazilian Portuguese")
 * and the language's own name ("Deutsch"). Works for any tag, so clones and bred voices get them too.
 */
function languageWords(tag: string, languageName: string): string {
  const key = `${tag}|${languageName}`;
  let words = languageWordsCache.get(key);
  if (words === undefined) {
    const primary = tag.split('-')[0];
    const names = new Set([languageName]);
    try {
      const regional = englishNames.of(tag);
      if (regional) names.add(regional);
      const own = new Intl.DisplayNames([primary], { type: 'language', fallback: 'none' }).of(primary);
      if (own && own !== primary) names.add(own);
    } catch {
      // Intl rejects some valid private-use tags; the catalog name is enough for those.
    }
    // Each word once: "Scottish Gaelic (United Kingdom)" must not count "scottish" twice.
    words = [...new Set([...names].flatMap((n) => tokenize(n)))].join(' ');
    languageWordsCache.set(key, words);
  }
  return words;
}

function toDoc(v: Voice): SearchDoc {
  return {
    id: v.id,
    name: v.name,
    languageNames: languageWords(v.language, v.language_name),
    language: v.language,
    tags: v.tags.join(' '),
    gender: GENDER_WORDS[v.gender],
    description: v.description,
    engine: v.engine,
  };
}

function termsOf(doc: SearchDoc): string[] {
  const terms = new Set<string>();
  for (const field of FIELDS) {
    for (const token of tokenize(doc[field])) {
      const t = processTerm(token);
      if (t) terms.add(t);
    }
  }
  return [...terms];
}

export function createVoiceSearch(voices: Iterable<Voice>): VoiceSearch {
  const index = new MiniSearch<SearchDoc>({
    fields: [...FIELDS],
    storeFields: [],
    processTerm,
  });
  const byId = new Map<string, Voice>();
  const termsById = new Map<string, string[]>();
  // How many voices use each term; a query word that is a known term is matched exactly, so "man" does not
  // drift into "mandarin" nor "female" into "male", while unknown words get typo tolerance and prefixes.
  const vocabulary = new Map<string, number>();

  function remove(id: string): void {
    if (!byId.has(id)) return;
    index.discard(id);
    byId.delete(id);
    for (const t of termsById.get(id) ?? []) {
      const n = (vocabulary.get(t) ?? 1) - 1;
      if (n <= 0) vocabulary.delete(t);
      else vocabulary.set(t, n);
    }
    termsById.delete(id);
  }

  function add(v: Voice): void {
    remove(v.id);
    const doc = toDoc(v);
    index.add(doc);
    byId.set(v.id, v);
    const terms = termsOf(doc);
    termsById.set(v.id, terms);
    for (const t of terms) vocabulary.set(t, (vocabulary.get(t) ?? 0) + 1);
  }

  const known = (term: string): boolean => vocabulary.has(term);
  const options = {
    boost: BOOST,
    boostDocument: (id: unknown) => NATURAL_ENGINE_BOOST[byId.get(String(id))?.engine ?? ''] ?? 1,
    prefix: (term: string) => term.length >= 2 && !known(term),
    fuzzy: (term: string) => (known(term) ? false : term.length >= 6 ? 2 : term.length >= 4 ? 1 : false),
  };

  function run(q: string, keep: (v: Voice) => boolean): Voice[] {
    // Visibility is applied inside the index search so that hidden voices cannot stop the OR fallback.
    const filter = (r: { id: unknown }): boolean => {
      const v = byId.get(String(r.id));
      return v !== undefined && keep(v);
    };
    let results = index.search(q, { ...options, filter, combineWith: 'AND' });
    if (results.length === 0) results = index.search(q, { ...options, filter, combineWith: 'OR' });
    return results.map((r) => byId.get(String(r.id)) as Voice);
  }

  function search(q: string, visible?: (v: Voice) => boolean, limit = DEFAULT_SEARCH_LIMIT): Voice[] {
    const shown = (v: Voice): boolean => visible === undefined || visible(v);
    const words = tokenize(q);
    const rest = words.filter((w) => !NATURAL_WORDS.has(processTerm(w) ?? ''));
    let found: Voice[];
    if (rest.length === words.length) found = run(q, shown);
    else {
      const restQuery = rest.join(' ');
      const hasRest = rest.some((w) => processTerm(w) !== null);
      const all = [...byId.values()].filter(shown);
      const natural = hasRest ? run(restQuery, (v) => isNatural(v) && shown(v)) : byQuality(all.filter(isNatural));
      const soundsNatural = (v: Voice): boolean => v.tags.some((t) => t.toLowerCase() === 'natural');
      // With other words, every match after the natural voices, the natural-sounding built-ins first; alone, only those.
      const others = hasRest ? run(restQuery, (v) => !isNatural(v) && shown(v)) : all.filter((v) => !isNatural(v) && soundsNatural(v));
      found = [...natural, ...others.filter(soundsNatural), ...others.filter((v) => !soundsNatural(v))];
    }
    return found.slice(0, Math.max(0, limit));
  }

  for (const v of voices) add(v);
  return { search, add, remove, has: (id) => byId.has(id) };
}
