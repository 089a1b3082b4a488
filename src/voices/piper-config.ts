// A Piper voice's `.onnx.json`, read as untrusted input: every field the engine uses is checked against bounds a
// real voice stays well inside, and a file outside them is refused at load with the field and its value (the voice
// is not listed; the others load). Trusted, a `length_scale` of 2000 took one sentence to 5.7 GB, and odd values
// failed every request of the voice with a 500.
import { ESPEAK_VOICES, findEspeakVoice } from '../synth/engines/espeak/info.ts';
import type { PiperModel } from '../synth/neural-models.ts';

/** The bounds, written once; published Piper voices sit far inside each (length_scale ~1, noise ~0.67 and 0.8). */
export const PIPER_CONFIG_BOUNDS = Object.freeze({
  /** The `.onnx.json` itself: real ones are a few KB (904 speakers: ~30 KB). */
  fileBytes: 1024 * 1024,
  sampleRate: [8000, 96_000],
  noiseScale: [0, 2],
  lengthScale: [0.2, 4],
  noiseW: [0, 2],
  /** Symbols in phoneme_id_map, ids per symbol, and the largest id (below num_symbols when it is given). */
  symbols: 4096,
  idsPerSymbol: 8,
  maxId: 65_535,
  speakers: 10_000,
  /** Names (speakers, language, dataset): shown in voice lists. */
  nameChars: 100,
} as const);

/** The espeak-ng voice a config names, by any name espeak lists for it; undefined when espeak has none. */
function espeakVoiceOf(name: string): string | undefined {
  if (findEspeakVoice(name)) return name;
  // Language codes espeak lists for a voice (`no` for Norwegian Bokmål, `zh` for Mandarin) select it too.
  const lower = name.toLowerCase();
  return ESPEAK_VOICES.find((v) => v.languages.includes(lower))?.identifier;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const show = (v: unknown): string => JSON.stringify(v)?.slice(0, 40) ?? String(v);

/** A number within [min, max]; `fallback` when absent. Throws naming the field otherwise. */
function bounded(value: unknown, field: string, [min, max]: readonly [number, number], fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new Error(`${field} is ${show(value)}, not a number from ${min} to ${max}`);
  return value;
}

/** A short name, or null when absent or blank. Throws for another type or an overlong one. */
function name(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new Error(`${field} is ${show(value)}, not a string`);
  const trimmed = value.trim();
  if (trimmed.length > PIPER_CONFIG_BOUNDS.nameChars)
    throw new Error(`${field} is longer than ${PIPER_CONFIG_BOUNDS.nameChars} characters`);
  return trimmed === '' ? null : trimmed;
}

function phonemeIdMap(raw: unknown, numSymbols: number | undefined): Record<string, number[]> {
  const B = PIPER_CONFIG_BOUNDS;
  if (!isRecord(raw) || Object.keys(raw).length === 0) throw new Error('phoneme_id_map is missing');
  const entries = Object.entries(raw);
  if (entries.length > B.symbols) throw new Error(`phoneme_id_map has ${entries.length} symbols, more than ${B.symbols}`);
  const top = numSymbols === undefined ? B.maxId : numSymbols - 1;
  const map: Record<string, number[]> = {};
  for (const [k, v] of entries) {
    // Piper maps single characters (a code point, or a base and its combining mark).
    if (k.length === 0 || k.length > 4) throw new Error(`phoneme_id_map key ${show(k)} is not one symbol`);
    if (!Array.isArray(v) || v.length === 0 || v.length > B.idsPerSymbol || !v.every((x) => Number.isInteger(x) && x >= 0 && x <= top))
      throw new Error(`phoneme_id_map[${show(k)}] is ${show(v)}, not a list of 1 to ${B.idsPerSymbol} ids from 0 to ${top}`);
    map[k] = v as number[];
  }
  for (const needed of ['^', '$', '_']) if (!map[needed]) throw new Error(`phoneme_id_map lacks ${JSON.stringify(needed)}`);
  return map;
}

function speakersOf(raw: Record<string, unknown>): { name: string; id: number }[] {
  const numSpeakers = bounded(raw.num_speakers, 'num_speakers', [1, PIPER_CONFIG_BOUNDS.speakers], 1);
  if (!Number.isInteger(numSpeakers)) throw new Error(`num_speakers is ${numSpeakers}, not a whole number`);
  if (numSpeakers === 1) return [];
  const map = raw.speaker_id_map ?? {};
  if (!isRecord(map)) throw new Error('speaker_id_map is not an object');
  const speakers: { name: string; id: number }[] = [];
  for (const [speaker, id] of Object.entries(map)) {
    if (!Number.isInteger(id) || (id as number) < 0 || (id as number) >= numSpeakers)
      throw new Error(`speaker_id_map[${show(speaker)}] is ${show(id)}, not a speaker id from 0 to ${numSpeakers - 1}`);
    const label = name(speaker, 'a speaker_id_map name');
    if (label === null) throw new Error('speaker_id_map has an empty name');
    speakers.push({ name: label, id: id as number });
  }
  if (speakers.length === 0) for (let i = 0; i < numSpeakers; i++) speakers.push({ name: String(i), id: i });
  return speakers;
}

/** Reads a Piper `.onnx.json`; throws with the field and the reason it cannot be used. */
export function parsePiperConfig(raw: unknown, key: string, onnxPath: string, revision = ''): PiperModel {
  const B = PIPER_CONFIG_BOUNDS;
  if (!isRecord(raw)) throw new Error('not a JSON object');
  const audio = isRecord(raw.audio) ? raw.audio : {};
  const sampleRate = audio.sample_rate;
  if (typeof sampleRate !== 'number' || !Number.isInteger(sampleRate) || sampleRate < B.sampleRate[0] || sampleRate > B.sampleRate[1]) {
    throw new Error(`audio.sample_rate is ${show(sampleRate)}, not a sample rate from ${B.sampleRate[0]} to ${B.sampleRate[1]} Hz`);
  }
  const type = raw.phoneme_type;
  if (type !== undefined && type !== 'espeak') throw new Error(`phoneme_type ${show(type)} is not supported (only espeak)`);
  const numSymbols = raw.num_symbols === undefined ? undefined : bounded(raw.num_symbols, 'num_symbols', [1, B.maxId + 1]);
  if (numSymbols !== undefined && !Number.isInteger(numSymbols)) throw new Error(`num_symbols is ${numSymbols}, not a whole number`);
  const map = phonemeIdMap(raw.phoneme_id_map, numSymbols);
  const espeakName = isRecord(raw.espeak) ? name(raw.espeak.voice, 'espeak.voice') : null;
  if (!espeakName) throw new Error('espeak.voice is missing');
  const espeak = espeakVoiceOf(espeakName);
  if (!espeak) throw new Error(`espeak.voice ${show(espeakName)} is not a voice espeak-ng has`);
  if (raw.inference !== undefined && !isRecord(raw.inference)) throw new Error('inference is not an object');
  const inference = isRecord(raw.inference) ? raw.inference : {};
  const lang = isRecord(raw.language) ? raw.language : {};
  const code = name(lang.code, 'language.code') ?? espeakName;
  const language = code.replace(/_/g, '-');
  return {
    key,
    onnxPath,
    revision,
    sampleRate,
    espeakVoice: espeak,
    phonemeIdMap: map,
    noiseScale: bounded(inference.noise_scale, 'inference.noise_scale', B.noiseScale, 0.667),
    lengthScale: bounded(inference.length_scale, 'inference.length_scale', B.lengthScale, 1),
    noiseW: bounded(inference.noise_w, 'inference.noise_w', B.noiseW, 0.8),
    speakers: speakersOf(raw),
    language,
    languageName: name(lang.name_english, 'language.name_english') ?? language,
    region: name(lang.country_english, 'language.country_english') ?? name(lang.region, 'language.region'),
    dataset: name(raw.dataset, 'dataset') ?? key,
    quality: name(audio.quality, 'audio.quality'),
  };
}
