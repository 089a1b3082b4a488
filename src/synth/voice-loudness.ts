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

/** −1 dBTP: room for the lossy codecs' own overshoot. */
export const TRUE_PEAK_CEILING_DB = -1;
export const TRUE_PEAK_CEILING = dbToGain(TRUE_PEAK_CEILING_DB);
/**
 * −18 LUFS: where listeners expect speech (other services deliver it at −16 to −19; at −23 users turned it up or
 * thought it broken). The peakiest voices' true peak stands about 21 dB over their integrated loudness (flite's
 * kal16 and espeak's male voices, whose glottal pulses are sharp): at −18 their peaks would reach +3 dBTP and the
 * limiter would cut 4 dB from a quarter of their syllables. Such a voice sits a little lower instead (voiceLevel):
 * the limiter takes at most MAX_PEAK_CUT_DB off its highest peak, and the voice stays within
 * MAX_SHORTFALL_LU of the target, so the built-in voices spread over less than 2 LU. Voices whose peaks fit under
 * the ceiling at the target (most of them) are not limited at all. scripts/gen-voice-gains.ts reports the
 * limiting whenever the voices change.
 */
export const DEFAULT_LOUDNESS_TARGET_LUFS = -18;
/** How deep the limiter may cut a voice's highest peak on the reference sentence before the voice is placed lower. */
export const MAX_PEAK_CUT_DB = 2;
/** How far under the target a peaky voice may sit: −18.75 LUFS at the default (more and the spread across voices passes 2 LU on some texts). */
export const MAX_SHORTFALL_LU = 0.75;
// Phonetically varied, plain words every engine and language voice reads as speech.
export const REFERENCE_TEXT =
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
  const { speech, rate } = await renderReference(engine, voice);
  return gainFor(speech, rate, target);
}

/**
 * A voice's gain to `target` and its peak-to-loudness ratio on the reference sentence (true peak, dBTP, minus
 * integrated loudness): at a target above the ceiling less this ratio, the limiter cuts into the voice's every
 * loud syllable.
 */
export async function measureVoiceLevel(engine: Engine, voice: VoiceSpec, target: number): Promise<VoiceLevel> {
  const { speech, rate } = await renderReference(engine, voice);
  const gainDb = gainFor(speech, rate, target);
  return {
    gainDb,
    peakToLoudnessDb: truePeakDb(speech) - integratedLoudness(speech, rate),
    ...limiting(speech, rate, dbToGain(gainDb)),
  };
}

export interface VoiceLevel extends Limiting {
  gainDb: number;
  peakToLoudnessDb: number;
}

/** What the limiter takes from a voice at its gain: how often it acts and how deep. */
export interface Limiting {
  /** Share of the speech's 20 ms frames (those within 30 dB of the loudest) the limiter pulls down by 0.1 dB or more. */
  limitedShare: number;
  /** The deepest cut, in dB (0: untouched). */
  maxReductionDb: number;
}

const FRAME_SECONDS = 0.02;
const SPEECH_FRAME_RANGE_DB = 30;

/** Frame by frame, the limited signal's level against the gained one's. */
export function limiting(speech: Float32Array, rate: number, gain: number): Limiting {
  const limited = limit(speech, rate, gain);
  const frame = Math.round(rate * FRAME_SECONDS);
  const frames: { level: number; reduction: number }[] = [];
  for (let at = 0; at + frame <= speech.length; at += frame) {
    let before = 0;
    let after = 0;
    for (let i = at; i < at + frame; i++) {
      before += (speech[i] * gain) ** 2;
      after += limited[i] ** 2;
    }
    if (before > 0) frames.push({ level: 10 * Math.log10(before / frame), reduction: 10 * Math.log10(before / Math.max(after, 1e-30)) });
  }
  const loudest = Math.max(...frames.map((f) => f.level));
  const speechFrames = frames.filter((f) => f.level > loudest - SPEECH_FRAME_RANGE_DB);
  // Per sample, not per frame: a cut on a single glottal pulse barely moves its frame's energy.
  let maxReductionDb = 0;
  for (let i = 0; i < speech.length; i++) {
    const x = Math.abs(speech[i] * gain);
    if (x > TRUE_PEAK_CEILING / 2) maxReductionDb = Math.max(maxReductionDb, 20 * Math.log10(x / Math.max(Math.abs(limited[i]), 1e-9)));
  }
  return {
    limitedShare: speechFrames.length ? speechFrames.filter((f) => f.reduction >= 0.1).length / speechFrames.length : 0,
    maxReductionDb,
  };
}

async function renderReference(engine: Engine, voice: VoiceSpec): Promise<{ speech: Float32Array; rate: number }> {
  const parts: Float32Array[] = [];
  let rate = engine.info.sampleRate;
  for await (const chunk of engine.synthesize(REFERENCE_TEXT, voice, { speed: 1 })) {
    parts.push(chunk.samples);
    rate = chunk.sampleRate;
  }
  const all = concatSamples(parts);
  const { start, end } = speechBounds(all, rate);
  return { speech: all.subarray(start, end), rate };
}

/**
 * The loudness a voice whose true peak stands `peakToLoudnessDb` over its loudness is brought to: the target, or
 * lower by what keeps the limiter's cut of its highest peak within MAX_PEAK_CUT_DB, by MAX_SHORTFALL_LU at most.
 */
export function voiceLevel(target: number, peakToLoudnessDb: number): number {
  const unlimitedUpTo = TRUE_PEAK_CEILING_DB + MAX_PEAK_CUT_DB - peakToLoudnessDb;
  return Math.max(target - MAX_SHORTFALL_LU, Math.min(target, unlimitedUpTo));
}

function gainFor(speech: Float32Array, rate: number, target: number): number {
  const lufs = integratedLoudness(speech, rate);
  if (!Number.isFinite(lufs)) return 0;
  const level = voiceLevel(target, truePeakDb(speech) - lufs);
  let db = clampGain(level - lufs);
  // A peaky voice loses some loudness in the limiter (kal16 at -16 LUFS: about 1 LU); the limited reference is
  // measured again and the gain corrected for what it took.
  for (let pass = 0; pass < 2; pass++) {
    const limited = limit(speech, rate, dbToGain(db));
    const after = integratedLoudness(limited, rate);
    if (!Number.isFinite(after) || Math.abs(level - after) < 0.2) break;
    db = clampGain(db + level - after);
  }
  return db;
}

const clampGain = (db: number): number => Math.min(MAX_GAIN_DB, Math.max(-MAX_GAIN_DB, db));

// True peak as BS.1770 estimates it: the peak of the signal 4x oversampled, the points between samples from a
// Hann-windowed sinc over 16 samples each side.
const PEAK_TAPS = 16;
const PEAK_KERNELS = [0.25, 0.5, 0.75].map((phase) =>
  Float64Array.from({ length: 2 * PEAK_TAPS }, (_, i) => {
    const t = i - PEAK_TAPS + 1 - phase;
    return (Math.sin(Math.PI * t) / (Math.PI * t)) * (0.5 + 0.5 * Math.cos((Math.PI * t) / PEAK_TAPS));
  }),
);

function truePeakDb(x: Float32Array): number {
  let peak = 0;
  for (let n = 0; n < x.length; n++) {
    peak = Math.max(peak, Math.abs(x[n]));
    if (n < PEAK_TAPS - 1 || n + PEAK_TAPS >= x.length) continue;
    for (const k of PEAK_KERNELS) {
      let v = 0;
      for (let i = 0; i < k.length; i++) v += x[n - PEAK_TAPS + 1 + i] * k[i];
      peak = Math.max(peak, Math.abs(v));
    }
  }
  return 20 * Math.log10(peak);
}

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
