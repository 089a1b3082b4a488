import { ENGINE_IDS } from '../synth/registry.ts';
import type { EngineId } from '../synth/voice-spec.ts';
import { GENDERS, type Gender, type Voice } from './voice.ts';

export interface VoiceFilter {
  /** A primary subtag (`en`) matches every tag of that language; a longer tag (`en-GB`) matches exactly. */
  language?: string;
  gender?: Gender;
  /** An engine id (`piper`, `kokoro`, `espeak`, `flite`). */
  engine?: string;
}

/** RFC 5646 asks implementations to handle tags of at least 35 characters; nothing real is longer. */
export const MAX_LANGUAGE_QUERY_CHARS = 35;
const LANGUAGE_QUERY = /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/;

// Macrolanguages whose members the catalog tags on their own: asking for Chinese should find Mandarin,
// Cantonese and Hakka voices, asking for Norwegian the Bokmål ones.
const MACROLANGUAGE_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  zh: ['zh', 'cmn', 'yue', 'hak'],
  no: ['no', 'nb', 'nn'],
};

/** Well-formed as a language filter: BCP 47 shaped (`_` accepted for `-`), at most 35 characters. */
export function isValidLanguageQuery(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_LANGUAGE_QUERY_CHARS && LANGUAGE_QUERY.test(value);
}

/** Well-formed as a gender filter: `female`, `male` or `neutral`, in any letter case. */
export function isValidGenderQuery(value: unknown): value is string {
  return typeof value === 'string' && (GENDERS as readonly string[]).includes(value.toLowerCase());
}

export type ParsedVoiceFilter = { ok: true; filter: VoiceFilter } | { ok: false; error: string };

/**
 * Turns raw query-string values into a filter. Absent or empty values mean "no filter"; anything else that
 * is not well-formed is an error the caller should answer with 400.
 */
export function parseVoiceFilter(query: { language?: unknown; gender?: unknown; engine?: unknown }): ParsedVoiceFilter {
  const filter: VoiceFilter = {};
  const { language, gender, engine } = query;
  if (engine !== undefined && engine !== '') {
    if (typeof engine !== 'string' || !ENGINE_IDS.includes(engine.toLowerCase() as EngineId)) {
      return { ok: false, error: `engine must be one of: ${ENGINE_IDS.join(', ')}` };
    }
    filter.engine = engine.toLowerCase();
  }
  if (language !== undefined && language !== '') {
    if (!isValidLanguageQuery(language)) {
      return { ok: false, error: 'language must be a BCP 47 language tag such as "en" or "en-GB"' };
    }
    filter.language = language;
  }
  if (gender !== undefined && gender !== '') {
    if (!isValidGenderQuery(gender)) return { ok: false, error: 'gender must be "female", "male" or "neutral"' };
    filter.gender = gender.toLowerCase() as Gender;
  }
  return { ok: true, filter };
}

function normalizeTag(tag: string): string {
  return tag.replace(/_/g, '-').toLowerCase();
}

export function matchesLanguage(voiceLanguage: string, query: string): boolean {
  const wanted = normalizeTag(query);
  const tag = normalizeTag(voiceLanguage);
  if (wanted.includes('-')) return tag === wanted;
  const primary = tag.split('-')[0];
  // hasOwn: the query is the caller's, and must not find Object.prototype's members.
  return (Object.hasOwn(MACROLANGUAGE_MEMBERS, wanted) ? MACROLANGUAGE_MEMBERS[wanted] : [wanted]).includes(primary);
}

export function filterVoices<T extends Pick<Voice, 'language' | 'gender' | 'engine'>>(voices: readonly T[], filter: VoiceFilter): T[] {
  const gender = filter.gender?.toLowerCase();
  return voices.filter(
    (v) =>
      (filter.language === undefined || matchesLanguage(v.language, filter.language)) &&
      (gender === undefined || v.gender === gender) &&
      (filter.engine === undefined || v.engine === filter.engine),
  );
}
