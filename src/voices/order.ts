// The order voices are listed in, on every door (dashboard, /api/voices, OpenAI's and ElevenLabs' lists,
// Wyoming's info): the caller's own voices, then natural voices in the caller's languages, then their other
// voices, then natural voices in other languages, then the rest. Within a group: language preference, then
// quality, then the language's name (the rest reads alphabetically), then catalog order.
import { isValidLanguageQuery, matchesLanguage } from './filter.ts';
import { isNatural, qualityScore } from './natural-rank.ts';
import type { Voice } from './voice.ts';

/** Without Accept-Language (Wyoming, curl) the service's own first language. */
export const DEFAULT_LANGUAGES: readonly string[] = ['en'];

const MAX_LANGUAGES = 12;
const byName = new Intl.Collator('en');

/**
 * The languages of an Accept-Language header, most wanted first (`de-CH, de;q=0.9, en;q=0.8` → de-CH, de, en).
 * `*`, malformed entries and q=0 are left out; an absent or empty header gives DEFAULT_LANGUAGES.
 */
export function acceptedLanguages(header: string | string[] | undefined): string[] {
  const raw = Array.isArray(header) ? header.join(',') : header;
  if (!raw) return [...DEFAULT_LANGUAGES];
  const entries: { tag: string; q: number; at: number }[] = [];
  for (const [at, part] of raw.split(',').slice(0, 50).entries()) {
    const [tagPart, ...params] = part.trim().split(';');
    const tag = tagPart.trim();
    if (!isValidLanguageQuery(tag)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (q > 0) entries.push({ tag, q, at });
  }
  entries.sort((a, b) => b.q - a.q || a.at - b.at);
  const tags = [...new Set(entries.map((e) => e.tag))].slice(0, MAX_LANGUAGES);
  return tags.length > 0 ? tags : [...DEFAULT_LANGUAGES];
}

/** 0 for the first language's exact tag, 1 for its other regions, 2 for the second's exact tag ...; Infinity: none. */
function languageRank(voiceLanguage: string, languages: readonly string[]): number {
  let best = Infinity;
  languages.forEach((wanted, i) => {
    const primary = wanted.split(/[-_]/)[0];
    if (wanted.includes('-') || wanted.includes('_')) {
      if (matchesLanguage(voiceLanguage, wanted)) best = Math.min(best, 2 * i);
      else if (matchesLanguage(voiceLanguage, primary)) best = Math.min(best, 2 * i + 1);
    } else if (matchesLanguage(voiceLanguage, primary)) best = Math.min(best, 2 * i);
  });
  return best;
}

/** The voices in listing order (see above); the input is not changed. */
export function orderVoices<T extends Voice>(voices: readonly T[], languages: readonly string[] = DEFAULT_LANGUAGES): T[] {
  const keyed = voices.map((v, i) => {
    const lang = languageRank(v.language, languages);
    const own = v.source !== 'builtin';
    const wanted = Number.isFinite(lang);
    const natural = isNatural(v);
    const group = own ? 0 : wanted ? (natural ? 1 : 2) : natural ? 3 : 4;
    return { v, i, group, lang, quality: own ? 0 : qualityScore(v) };
  });
  keyed.sort(
    (a, b) =>
      a.group - b.group || a.lang - b.lang || b.quality - a.quality || byName.compare(a.v.language_name, b.v.language_name) || a.i - b.i,
  );
  return keyed.map((k) => k.v);
}
