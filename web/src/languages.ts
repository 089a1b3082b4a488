import type { Voice } from './types.ts';

export interface LanguageOption {
  /** What goes into `?language=`: a primary subtag when it names one language, else the full tag. */
  value: string;
  label: string;
}

function primary(tag: string): string {
  return tag.toLowerCase().split('-')[0];
}

/** Filter choices from the voices themselves, one per language name, sorted by name. */
export function languageOptions(voices: Voice[]): LanguageOption[] {
  const names = new Map<string, Set<string>>();
  for (const v of voices) {
    const p = primary(v.language);
    const set = names.get(p) ?? new Set<string>();
    set.add(v.language_name);
    names.set(p, set);
  }
  const options: LanguageOption[] = [];
  const seen = new Set<string>();
  for (const v of voices) {
    const p = primary(v.language);
    const shared = (names.get(p)?.size ?? 0) > 1;
    const value = shared ? v.language : p;
    if (seen.has(value)) continue;
    seen.add(value);
    options.push({ value, label: shared ? `${v.language_name} (${v.language})` : v.language_name });
  }
  return options.sort((a, b) => a.label.localeCompare(b.label));
}

/** The same rule the service applies: a primary subtag matches all its regions, a full tag only itself. */
export function matchesLanguage(voiceLanguage: string, wanted: string): boolean {
  const tag = voiceLanguage.toLowerCase();
  const w = wanted.toLowerCase();
  return w.includes('-') ? tag === w : primary(tag) === w;
}
