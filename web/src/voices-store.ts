import { useEffect, useSyncExternalStore } from 'react';
import { api } from './api.ts';
import type { Voice } from './types.ts';

// One copy of the full voice list (built-ins plus the user's own) for every picker on every page;
// forging or deleting a voice invalidates it.
interface State {
  voices: Voice[] | null;
  error: string | null;
}

let state: State = { voices: null, error: null };
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function set(next: State): void {
  state = next;
  for (const l of listeners) l();
}

export function reloadVoices(): Promise<void> {
  loading = api
    .listVoices()
    .then((voices) => set({ voices, error: null }))
    .catch((err: unknown) => set({ voices: state.voices, error: err instanceof Error ? err.message : String(err) }))
    .finally(() => {
      loading = null;
    });
  return loading;
}

export function forgetVoices(): void {
  set({ voices: null, error: null });
}

export function useVoices(): State & { reload: () => Promise<void> } {
  const current = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
  useEffect(() => {
    if (state.voices === null && loading === null) void reloadVoices();
  }, []);
  return { ...current, reload: reloadVoices };
}

export function isOwn(voice: Voice): boolean {
  return voice.source !== 'builtin';
}

/** Language groups in the order people look for them: by the language's name, then the voice's. */
export function byLanguageName(a: Voice, b: Voice): number {
  return a.language_name.localeCompare(b.language_name) || a.language.localeCompare(b.language) || a.name.localeCompare(b.name);
}

/** Voices grouped for a picker: the user's own first, then one group per language name, sorted by name. */
export function groupVoices(voices: Voice[]): Array<{ label: string; voices: Voice[] }> {
  const own = voices.filter(isOwn).sort((a, b) => a.name.localeCompare(b.name));
  const byLanguage = new Map<string, Voice[]>();
  for (const v of [...voices].sort(byLanguageName)) {
    if (isOwn(v)) continue;
    const list = byLanguage.get(v.language_name) ?? [];
    list.push(v);
    byLanguage.set(v.language_name, list);
  }
  const groups = [...byLanguage.entries()].map(([label, list]) => ({ label, voices: list }));
  return own.length > 0 ? [{ label: 'Your voices', voices: own }, ...groups] : groups;
}

/** Every word typed must start a word of the voice's name, id, language, accent tags, gender or engine. */
export function matchesQuery(voice: Voice, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [voice.name, voice.id, voice.language, voice.language_name, voice.gender, voice.engine, voice.source === 'builtin' ? '' : 'yours mine own', ...voice.tags]
    .join(' ')
    .toLowerCase();
  const starts = hay.split(/[\s,()-]+/);
  // "male" must not match "female": words match at their start only (an id or tag keeps its hyphens too).
  return words.every((w) => starts.some((s) => s.startsWith(w)) || voice.id.startsWith(w));
}

export function voiceLabel(v: Voice): string {
  return `${v.name} — ${v.language_name} (${v.language}), ${v.gender}`;
}
