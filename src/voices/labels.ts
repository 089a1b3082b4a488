// One readable, unique line per voice for pickers that show a single string (Open WebUI's voice list):
// "Heart · American English, female, natural", "Afrikaans (female) · espeak" — nothing said twice, and no two
// voices with the same line.
import { isNatural } from './natural-rank.ts';
import type { Voice } from './voice.ts';

const regionalNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function languageOf(v: Voice): string {
  try {
    return regionalNames.of(v.language) ?? v.language_name;
  } catch {
    return v.language_name;
  }
}

function label(v: Voice): string {
  const name = v.name.toLowerCase();
  const language = languageOf(v);
  const details = [
    name.includes(v.language_name.toLowerCase()) && !language.includes(' ') ? null : language,
    v.gender === 'neutral' || new RegExp(`\\b${v.gender}\\b`).test(name) ? null : v.gender,
    v.source !== 'builtin' ? (v.source === 'breed' ? 'yours, bred' : 'yours, cloned') : isNatural(v) ? 'natural' : v.engine,
  ].filter((d): d is string => d !== null);
  return `${v.name} · ${details.join(', ')}`;
}

/** Each voice's line, made unique by its id where two would read the same. */
export function voiceLabels(voices: readonly Voice[]): Map<string, string> {
  const lines = voices.map((v) => ({ id: v.id, line: label(v) }));
  const count = new Map<string, number>();
  for (const l of lines) count.set(l.line, (count.get(l.line) ?? 0) + 1);
  return new Map(lines.map((l) => [l.id, (count.get(l.line) ?? 0) > 1 ? `${l.line} (${l.id})` : l.line]));
}
