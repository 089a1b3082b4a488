import { useEffect, useSyncExternalStore } from 'react';
import { api } from './api.ts';
import type { Voice } from './types.ts';

// One copy of the full voice list (built-ins plus the user's own) for every picker on every page, in the
// service's order (own voices, then natural voices and the browser's languages first); forging, deleting,
// installing or removing a voice invalidates it.
interface State {
  voices: Voice[] | null;
  /** What `default` speaks now (it changes when natural voices are installed). */
  defaultVoice: Voice | null;
  error: string | null;
}

let state: State = { voices: null, defaultVoice: null, error: null };
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function set(next: State): void {
  state = next;
  for (const l of listeners) l();
}

export function reloadVoices(): Promise<void> {
  loading = Promise.all([api.listVoices(), api.getVoice('default').catch(() => null)])
    .then(([voices, defaultVoice]) => set({ voices, defaultVoice, error: null }))
    .catch((err: unknown) => set({ ...state, error: err instanceof Error ? err.message : String(err) }))
    .finally(() => {
      loading = null;
    });
  return loading;
}

export function forgetVoices(): void {
  set({ voices: null, defaultVoice: null, error: null });
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

/** Engines whose voices are neural models installed on the server (natural voices). */
export const NATURAL_ENGINES: readonly string[] = ['piper', 'kokoro'];

export function isNatural(voice: Voice): boolean {
  return NATURAL_ENGINES.includes(voice.engine);
}

/**
 * Voices grouped for a picker, in the service's order: the user's own, then the natural voices, then one group
 * per language, the browser's languages first (the order the service lists them in).
 */
export function groupVoices(voices: Voice[]): Array<{ label: string; voices: Voice[] }> {
  const own = voices.filter(isOwn);
  const natural = voices.filter((v) => !isOwn(v) && isNatural(v));
  const byLanguage = new Map<string, Voice[]>();
  for (const v of voices) {
    if (isOwn(v) || isNatural(v)) continue;
    const list = byLanguage.get(v.language_name) ?? [];
    list.push(v);
    byLanguage.set(v.language_name, list);
  }
  return [
    ...(own.length > 0 ? [{ label: 'Your voices', voices: own }] : []),
    ...(natural.length > 0 ? [{ label: 'Natural voices', voices: natural }] : []),
    ...[...byLanguage.entries()].map(([label, list]) => ({ label, voices: list })),
  ];
}

/** Every word typed must start a word of the voice's name, id, language, accent tags, gender or engine. */
export function matchesQuery(voice: Voice, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [
    voice.name,
    voice.id,
    voice.language,
    voice.language_name,
    voice.gender,
    voice.engine,
    voice.source === 'builtin' ? '' : 'yours mine own',
    ...voice.tags,
  ]
    .join(' ')
    .toLowerCase();
  const starts = hay.split(/[\s,()-]+/);
  // "male" must not match "female": words match at their start only (an id or tag keeps its hyphens too).
  return words.every((w) => starts.some((s) => s.startsWith(w)) || voice.id.startsWith(w));
}

export function voiceLabel(v: Voice): string {
  return `${v.name} — ${v.language_name} (${v.language}), ${v.gender}`;
}
