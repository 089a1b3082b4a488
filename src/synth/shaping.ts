// Joins pieces of speech cleanly without losing any of it. Engines pad their output with silence of their
// own choosing (flite ~0.2 s of low noise on each side), so each piece is cut down to its speech plus a
// margin, and separated from the next by a pause chosen from the punctuation.
//
// Only silence may be cut: soft onsets (p, f, th) and word-final fricatives are 30-40 dB under a vowel, so
// a threshold relative to the loudest part (as in loudness meters) cuts them. The threshold here sits a
// little over the piece's own noise floor instead, the margins are kept on top of it, and the fades that
// hide the cut lie inside those margins: they only ever touch audio under the threshold.
import type { Break } from './text/index.ts';

export const FRAME_SECONDS = 0.005;
/** Above the noise floor by this much (dB) is speech. */
const FLOOR_RISE_DB = 12;
// Bounds of the threshold: under -70 dBFS nothing is audible after the loudness gain; over -48 dBFS a
// breathy onset could hide under an engine's noise, so a noisier piece keeps its noise rather than risk it.
const MIN_THRESHOLD = 10 ** (-70 / 20);
const MAX_THRESHOLD = 10 ** (-48 / 20);
/** Fraction of frames at or under the noise floor: a piece's padding is usually a quarter of it or more. */
const FLOOR_QUANTILE = 0.1;
export const FADE_SECONDS = 0.005;

/** Silence kept before the first and after the last speech frame of a piece. */
export interface Margins {
  lead: number;
  tail: number;
}

// Before a piece: a plosive's closure and a fricative's first rise; after: the slow decay of s, f, th.
const PAUSE_MARGINS: Margins = { lead: 0.03, tail: 0.06 };
// Where a sentence goes on in the next piece (a long reading's phrase cut, a voice or prosody change mid-sentence)
// the gap is between words, so it stays short (the threshold still keeps everything audible).
const WORD_MARGINS: Margins = { lead: 0.015, tail: 0.02 };

/** The margins of a piece at a join of this kind. */
export function marginsAt(join: Break | 'start' | 'end'): Margins {
  return join === 'none' ? WORD_MARGINS : PAUSE_MARGINS;
}

/** Silence every response starts with, whatever the engine left before its first sound. */
export const START_SILENCE_SECONDS = 0.005;

/**
 * The gap between pieces at speed 1 by what ended the previous piece, including the margins both pieces
 * keep: the pipeline adds only what the margins do not already make up.
 */
export const PAUSE_SECONDS: Readonly<Record<Break, number>> = {
  paragraph: 0.6,
  sentence: 0.36,
  clause: 0.18,
  none: 0.035,
};

/** RMS of each frame of `frame` samples (the last one may be shorter). */
function frameLevels(x: Float32Array, frame: number): Float32Array {
  const frames = Math.ceil(x.length / frame);
  const levels = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    const from = f * frame;
    const to = Math.min(x.length, from + frame);
    let sum = 0;
    for (let i = from; i < to; i++) sum += x[i] * x[i];
    levels[f] = Math.sqrt(sum / Math.max(1, to - from));
  }
  return levels;
}

/** The level under which a frame of this piece is silence: a little over its noise floor. */
function silenceThreshold(levels: Float32Array): number {
  if (levels.length === 0) return MIN_THRESHOLD;
  const sorted = Float32Array.from(levels).sort();
  const floor = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * FLOOR_QUANTILE))];
  return Math.min(MAX_THRESHOLD, Math.max(MIN_THRESHOLD, floor * 10 ** (FLOOR_RISE_DB / 20)));
}

/** The level under which a frame of `x` is silence (see silenceThreshold). */
export function noiseThreshold(x: Float32Array, rate: number): number {
  return silenceThreshold(frameLevels(x, Math.max(1, Math.round(rate * FRAME_SECONDS))));
}

/** First and last sample of the audible part of `x` (start === end when there is none). */
export function speechExtent(x: Float32Array, rate: number): { start: number; end: number } {
  const frame = Math.max(1, Math.round(rate * FRAME_SECONDS));
  const levels = frameLevels(x, frame);
  const threshold = silenceThreshold(levels);
  let first = -1;
  let last = -1;
  for (let f = 0; f < levels.length; f++) {
    if (levels[f] > threshold) {
      if (first < 0) first = f;
      last = f;
    }
  }
  if (first < 0) return { start: 0, end: 0 };
  return { start: first * frame, end: Math.min(x.length, (last + 1) * frame) };
}

/** Start and end sample of the speech in `x` with its margins; start === end when `x` holds no speech. */
export function speechBounds(x: Float32Array, rate: number, margins: Margins = PAUSE_MARGINS): { start: number; end: number } {
  const { start, end } = speechExtent(x, rate);
  if (end <= start) return { start: 0, end: 0 };
  return {
    start: Math.max(0, start - Math.round(rate * margins.lead)),
    end: Math.min(x.length, end + Math.round(rate * margins.tail)),
  };
}

export { concatSamples } from '../audio/samples.ts';
