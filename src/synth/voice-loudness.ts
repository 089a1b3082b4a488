// Even loudness across voices: each voice gets one gain, measured once per worker thread on a fixed
// reference sentence (integrated loudness toward the target), then a true-peak limiter catches what the
// gain and the resampler push over the ceiling. A per-voice gain, rather than one measured on each
// request's own audio, keeps streaming possible (the first sentence goes out before the last is rendered)
// and keeps a voice at one level across requests, so switching voices mid-conversation does not jump.
// Measured lazily: clones and bred voices are made at run time and need a gain too. The built-in voices' gains
// are measured ahead, the same way, into voice-gains.json (scripts/gen-voice-gains.ts): a thread's first request
// for one then need not render the reference first (~0.3 s for a flite voice, and on the way to ready for the
// default voice, which every thread warms).
import { readFileSync } from 'node:fs';
import { dbToGain, integratedLoudness } from '../audio/loudness.ts';
import { createLimiter, type Limiter } from '../audio/limiter.ts';
import type { Engine } from './engine.ts';
import { concatSamples, speechBounds } from './shaping.ts';
import type { VoiceSpec } from './voice-spec.ts';

export const DEFAULT_LOUDNESS_TARGET_LUFS = -16;
/** −1 dBTP: room for the lossy codecs' own overshoot. */
export const TRUE_PEAK_CEILING = dbToGain(-1);
// Phonetically varied, plain words every engine and language voice reads as speech.
const REFERENCE_TEXT =
  'The quick brown fox jumps over the lazy dog, while five wizards box jovially at noon. ' +
  'Please call me back when you hear this message, and have a lovely evening.';
// A gain this large only meets a broken or silent voice; the limiter would otherwise make noise of it.
const MAX_GAIN_DB = 24;
const CACHE_SIZE = 256;

let targetLufs: number | null = DEFAULT_LOUDNESS_TARGET_LUFS;
const gains = new Map<string, Promise<number>>();

/** Sets the loudness every voice is brought to, or null for none (a worker calls this once, from the configuration). */
export function setLoudnessTarget(lufs: number | null): void {
  if ((lufs !== null && !Number.isFinite(lufs)) || lufs === targetLufs) return;
  targetLufs = lufs;
  gains.clear();
}

/** voice-gains.json: gains in dB by gainKey, for one loudness target. */
export interface GainTable {
  target_lufs: number;
  gains_db: Record<string, number>;
}

let table: GainTable | undefined;

export function gainTable(): GainTable {
  table ??= JSON.parse(readFileSync(new URL('./voice-gains.json', import.meta.url), 'utf8')) as GainTable;
  return table;
}

/** The gain in dB that brings `voice` to `target`, measured on the reference sentence. */
export async function measureGainDb(engine: Engine, voice: VoiceSpec, target: number): Promise<number> {
  const parts: Float32Array[] = [];
  let rate = engine.info.sampleRate;
  for await (const chunk of engine.synthesize(REFERENCE_TEXT, voice, { speed: 1 })) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
  }
  const all = concatSamples(parts);
  const { start, end } = speechBounds(all, rate);
  const speech = all.subarray(start, end);
  const lufs = integratedLoudness(speech, rate);
  if (!Number.isFinite(lufs)) return 0;
  let db = clampGain(target - lufs);
  // A peaky voice raised a lot loses loudness in the limiter (kal16: about 1 LU); the limited
  // reference is measured again and the gain corrected for what the limiter took.
  for (let pass = 0; pass < 2; pass++) {
    const limited = limit(speech, rate, dbToGain(db));
    const after = integratedLoudness(limited, rate);
    if (!Number.isFinite(after) || Math.abs(target - after) < 0.2) break;
    db = clampGain(db + target - after);
  }
  return db;
}

const clampGain = (db: number): number => Math.min(MAX_GAIN_DB, Math.max(-MAX_GAIN_DB, db));

function limit(x: Float32Array, rate: number, gain: number): Float32Array {
  const limiter = createLimiter(rate, TRUE_PEAK_CEILING, gain);
  return concatSamples([limiter.process(x), limiter.flush()]);
}

/**
 * Voices that sound alike in level share a measurement: the rate control does not change loudness, and
 * pitches within a semitone differ by far less than 1 LU. The forge's fit renders a voice at a few nearby
 * settings, and would otherwise pay for a reference render at each.
 */
export function gainKey(voice: VoiceSpec): string {
  const { rate: _rate, pitchHz, ...rest } = voice.controls ?? {};
  const pitchStep = pitchHz === undefined ? null : Math.round(12 * Math.log2(pitchHz / 100));
  return JSON.stringify([voice.engine, voice.base, voice.variant ?? null, pitchStep, rest]);
}

/** The linear gain that brings `voice` to the target loudness; measured on first use, then cached. */
export function voiceGain(engine: Engine, voice: VoiceSpec): Promise<number> {
  if (targetLufs === null) return Promise.resolve(1);
  const key = gainKey(voice);
  let gain = gains.get(key);
  if (!gain) {
    const target = targetLufs;
    const known = target === gainTable().target_lufs ? gainTable().gains_db[key] : undefined;
    gain = known !== undefined ? Promise.resolve(dbToGain(known)) : measureGainDb(engine, voice, target).then(dbToGain);
    // A failed measurement is not remembered: the next request tries again.
    gain.catch(() => gains.delete(key));
    if (gains.size >= CACHE_SIZE) gains.delete(gains.keys().next().value as string);
    gains.set(key, gain);
  }
  return gain;
}

/**
 * The pipeline's level stage for one request at `rate`: the true-peak limiter. The voices' gains are
 * applied before it (per piece, so a request may switch voices); it catches what they and the resampler
 * push over the ceiling.
 */
export function createLevelStage(rate: number): Limiter {
  return createLimiter(rate, TRUE_PEAK_CEILING);
}
