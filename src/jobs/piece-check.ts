// Whether a rendered piece of a book sounds like its text, judged from its samples alone, so a book can be
// trusted without being listened through: speech where text was (not a silent or cut piece), no long silence
// at its ends beyond the pauses its text asks for, no clipping, and no sample that is not a number. Pure.
import { SPEECH_CHARS_PER_SECOND } from './document/audio-estimate.ts';

/** 20 ms frames at 24 kHz: short enough to find a word's edges, long enough for a steady level. */
const FRAME = 480;
/** A frame this loud (RMS, of full scale) holds speech: about -42 dBFS, far under any engine's quietest words. */
const VOICED_RMS = 0.008;
/** Silence at either end past the pauses the text asks for. */
const MAX_EDGE_SILENCE_SECONDS = 1.5;
/** Voiced time under this share of what the text should take is a silent or cut piece... */
const MIN_VOICED_SHARE = 0.4;
/** ...and over this many times it, an engine that ran on (neural models can babble). */
const MAX_VOICED_SHARE = 4;
/** Samples at full scale: more than this share of the voiced ones is audible clipping. */
const MAX_CLIPPED_SHARE = 0.002;
const FULL_SCALE = 32_767;
/** The speaking rate assumed until the voice's own is measured, and the pieces it takes to measure it. */
const RATE_SAMPLES_NEEDED = 3;
/** Under this much text the expected length says little (a title, "Chapter 2"): only silence fails it. */
const SHORT_PIECE_CHARS = 40;

export interface PieceMeasure {
  seconds: number;
  voicedSeconds: number;
  leadingSilence: number;
  trailingSilence: number;
  clipped: number;
  /** Samples that are not finite numbers (only float audio can hold them). */
  nonFinite: number;
}

export interface PieceExpectation {
  /** Spoken characters. */
  characters: number;
  /** Seconds of pauses the text asks for (a pause before it, SSML breaks): allowed at its ends. */
  pauseSeconds: number;
  /** Characters per voiced second of this voice at this speed. */
  charsPerSecond: number;
}

/** Measures 16-bit little-endian mono PCM (or float samples, which can hold NaN) at `rate`. */
export function measurePiece(pcm: Uint8Array | Float32Array, rate = 24_000): PieceMeasure {
  const float = pcm instanceof Float32Array;
  const count = float ? pcm.length : pcm.length >> 1;
  const view = float ? null : new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const sample = (i: number): number => (float ? (pcm as Float32Array)[i] : view!.getInt16(i * 2, true) / FULL_SCALE);
  let voicedFrames = 0;
  let firstVoiced = -1;
  let lastVoiced = -1;
  let clipped = 0;
  let nonFinite = 0;
  const frames = Math.ceil(count / FRAME);
  for (let f = 0; f < frames; f++) {
    const end = Math.min(count, (f + 1) * FRAME);
    let sum = 0;
    for (let i = f * FRAME; i < end; i++) {
      const x = sample(i);
      if (!Number.isFinite(x)) {
        nonFinite++;
        continue;
      }
      if (Math.abs(x) >= 0.9999) clipped++;
      sum += x * x;
    }
    if (Math.sqrt(sum / Math.max(1, end - f * FRAME)) >= VOICED_RMS) {
      voicedFrames++;
      if (firstVoiced < 0) firstVoiced = f;
      lastVoiced = f;
    }
  }
  const seconds = count / rate;
  const frameSeconds = FRAME / rate;
  return {
    seconds,
    voicedSeconds: voicedFrames * frameSeconds,
    leadingSilence: firstVoiced < 0 ? seconds : Math.min(seconds, firstVoiced * frameSeconds),
    trailingSilence: lastVoiced < 0 ? seconds : Math.max(0, seconds - (lastVoiced + 1) * frameSeconds),
    clipped,
    nonFinite,
  };
}

/** What is wrong with a piece, or null when it passes. */
export function judgePiece(m: PieceMeasure, expect: PieceExpectation): string | null {
  if (m.nonFinite > 0) return `${m.nonFinite} samples are not numbers (NaN or infinite)`;
  if (expect.characters > 0 && m.voicedSeconds === 0) return 'silent: no speech where there is text';
  const expected = expect.characters / expect.charsPerSecond;
  if (expect.characters >= SHORT_PIECE_CHARS) {
    const share = m.voicedSeconds / expected;
    if (share < MIN_VOICED_SHARE)
      return `too short: ${m.voicedSeconds.toFixed(2)} s of speech where its ${expect.characters} characters take about ${expected.toFixed(1)} s (silent or cut)`;
    if (share > MAX_VOICED_SHARE)
      return `too long: ${m.voicedSeconds.toFixed(1)} s of speech where its ${expect.characters} characters take about ${expected.toFixed(1)} s`;
  }
  const edge = MAX_EDGE_SILENCE_SECONDS + expect.pauseSeconds;
  if (expect.characters > 0 && m.leadingSilence > edge) return `${m.leadingSilence.toFixed(1)} s of silence before the speech`;
  if (expect.characters > 0 && m.trailingSilence > edge) return `${m.trailingSilence.toFixed(1)} s of silence after the speech`;
  const voicedSamples = Math.max(1, m.voicedSeconds * 24_000);
  if (m.clipped / voicedSamples > MAX_CLIPPED_SHARE) return `clipped: ${m.clipped} samples at full scale`;
  return null;
}

/**
 * Each voice's speaking rate as measured on the pieces of books that passed their checks (characters per
 * voiced second, at speed 1), so a piece is judged against its own voice, not a guess; the usual rate of speech
 * until a voice has a few pieces measured.
 */
export class SpeakingRates {
  private readonly rates = new Map<string, { characters: number; seconds: number; pieces: number }>();

  charsPerSecond(voice: string, speed: number): number {
    const r = this.rates.get(voice);
    const base = r && r.pieces >= RATE_SAMPLES_NEEDED && r.seconds > 0 ? r.characters / r.seconds : SPEECH_CHARS_PER_SECOND;
    return base * speed;
  }

  /** Counts a piece that passed (only pieces long enough to say something about the rate). */
  observe(voice: string, speed: number, characters: number, voicedSeconds: number): void {
    if (characters < SHORT_PIECE_CHARS || voicedSeconds <= 0) return;
    const r = this.rates.get(voice) ?? { characters: 0, seconds: 0, pieces: 0 };
    r.characters += characters;
    r.seconds += voicedSeconds * speed;
    r.pieces++;
    // Bounded memory per voice: the rate drifts with recent pieces rather than growing sums forever.
    if (r.pieces > 200) {
      r.characters /= 2;
      r.seconds /= 2;
      r.pieces = 100;
    }
    this.rates.set(voice, r);
  }
}
