// The built-in catalog, read once from the JSON that scripts/gen-voice-catalog.ts generated, so that no
// engine has to be loaded on the main thread to know which voices exist.
import { readFileSync } from 'node:fs';
import { isEngineId } from '../synth/registry.ts';
import type { VoiceSpec } from '../synth/voice-spec.ts';
import { GENDERS, VOICE_ID_PATTERN, type Gender, type Voice } from './voice.ts';

/** The alias `voice_id: "default"` stands for; flite's slt is the most natural English voice here. */
export const DEFAULT_VOICE_ALIAS = 'default';
export const DEFAULT_VOICE_ID = 'flite-slt';

function fail(where: string, what: string): never {
  throw new Error(`builtin-voices.json: ${where}: ${what}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(raw: Record<string, unknown>, key: string, where: string): string {
  const value = raw[key];
  if (typeof value !== 'string' || value === '') fail(where, `${key} must be a non-empty string`);
  return value;
}

function parseSpec(raw: unknown, where: string): VoiceSpec {
  if (!isRecord(raw)) fail(where, 'spec must be an object');
  const engine = raw.engine;
  if (typeof engine !== 'string' || !isEngineId(engine)) fail(where, `unknown engine ${String(engine)}`);
  const spec: VoiceSpec = { engine, base: text(raw, 'base', where) };
  if (raw.variant !== undefined) spec.variant = text(raw, 'variant', where);
  return spec;
}

/** Checks one catalog entry; built-in voices carry no owner, parents or genome. */
export function parseBuiltinVoice(raw: unknown, where: string): Voice {
  if (!isRecord(raw)) fail(where, 'not an object');
  const id = text(raw, 'id', where);
  if (!VOICE_ID_PATTERN.test(id)) fail(where, `id ${id} is not URL-safe`);
  const gender = raw.gender;
  if (!GENDERS.includes(gender as Gender)) fail(where, `bad gender ${String(gender)}`);
  const tags = raw.tags;
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) fail(where, 'tags must be strings');
  if (raw.source !== 'builtin') fail(where, 'source must be builtin');
  const spec = parseSpec(raw.spec, where);
  if (raw.engine !== spec.engine) fail(where, 'engine differs from spec.engine');
  return {
    id,
    name: text(raw, 'name', where),
    language: text(raw, 'language', where),
    language_name: text(raw, 'language_name', where),
    gender: gender as Gender,
    engine: spec.engine,
    source: 'builtin',
    description: text(raw, 'description', where),
    tags: [...(tags as string[])],
    spec,
  };
}

function freezeVoice(v: Voice): Voice {
  Object.freeze(v.tags);
  Object.freeze(v.spec);
  return Object.freeze(v);
}

function load(): readonly Voice[] {
  const raw: unknown = JSON.parse(readFileSync(new URL('./builtin-voices.json', import.meta.url), 'utf8'));
  if (!Array.isArray(raw)) fail('top level', 'not an array');
  const voices = raw.map((entry, i) => freezeVoice(parseBuiltinVoice(entry, `entry ${i}`)));
  return Object.freeze(voices);
}

/** Every built-in voice, in catalog order (the default voice first). Frozen: copy before changing. */
export const BUILTIN_VOICES: readonly Voice[] = load();

const byId = new Map(BUILTIN_VOICES.map((v) => [v.id, v]));
if (byId.size !== BUILTIN_VOICES.length) throw new Error('builtin-voices.json: duplicate voice ids');
if (!byId.has(DEFAULT_VOICE_ID)) throw new Error(`builtin-voices.json: the default voice ${DEFAULT_VOICE_ID} is missing`);

export function getBuiltinVoice(id: string): Voice | undefined {
  return byId.get(id);
}

/** A built-in voice by id, with `default` resolved to the default voice; undefined when there is none. */
export function resolveBuiltin(id: string): Voice | undefined {
  return byId.get(id === DEFAULT_VOICE_ALIAS ? DEFAULT_VOICE_ID : id);
}
