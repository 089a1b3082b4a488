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

/** Voices grouped for a select: the user's own first, then by language name. */
export function groupVoices(voices: Voice[]): Array<{ label: string; voices: Voice[] }> {
  const own = voices.filter(isOwn);
  const byLanguage = new Map<string, Voice[]>();
  for (const v of voices) {
    if (isOwn(v)) continue;
    const list = byLanguage.get(v.language_name) ?? [];
    list.push(v);
    byLanguage.set(v.language_name, list);
  }
  const groups = [...byLanguage.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([label, list]) => ({ label, voices: list }));
  return own.length > 0 ? [{ label: 'Your voices', voices: own }, ...groups] : groups;
}

export function voiceLabel(v: Voice): string {
  return `${v.name} — ${v.language_name} (${v.language}), ${v.gender}`;
}
