// Joins sentences cleanly: engines pad their output with silence of their own choosing (flite ~0.2 s on
// each side), so each sentence is trimmed to its speech, faded at its edges against clicks, and
// separated by a pause chosen from the punctuation.
import type { Break } from './text/index.ts';

const FRAME_SECONDS = 0.01;
const LEAD_MARGIN_SECONDS = 0.02;
// Word-final consonants (s, f, th) are quiet and long; keep more after the speech than before it.
const TAIL_MARGIN_SECONDS = 0.06;
const FADE_SECONDS = 0.006;

/** Pauses between pieces at speed 1, by what ended the previous piece. */
export const PAUSE_SECONDS: Readonly<Record<Break, number>> = {
  paragraph: 0.6,
  sentence: 0.32,
  clause: 0.14,
  none: 0.02,
};

/** Start and end sample of the speech in `x` (RMS of 10 ms frames against a level relative to the loudest). */
export function speechBounds(x: Float32Array, rate: number): { start: number; end: number } {
  const frame = Math.max(1, Math.round(rate * FRAME_SECONDS));
  const frames = Math.ceil(x.length / frame);
  const rms = new Float32Array(frames);
  let loudest = 0;
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    const end = Math.min(x.length, (f + 1) * frame);
    for (let i = f * frame; i < end; i++) sum += x[i] * x[i];
    rms[f] = Math.sqrt(sum / Math.max(1, end - f * frame));
    if (rms[f] > loudest) loudest = rms[f];
  }
  const threshold = Math.max(0.002, loudest * 0.02);
  let first = -1;
  let last = -1;
  for (let f = 0; f < frames; f++) {
    if (rms[f] > threshold) {
      if (first < 0) first = f;
      last = f;
    }
  }
  if (first < 0) return { start: 0, end: 0 };
  const start = Math.max(0, first * frame - Math.round(rate * LEAD_MARGIN_SECONDS));
  const end = Math.min(x.length, (last + 1) * frame + Math.round(rate * TAIL_MARGIN_SECONDS));
  return { start, end };
}

/** Raised-cosine fade-in and fade-out, in place. */
export function fadeEdges(x: Float32Array, rate: number, seconds = FADE_SECONDS): void {
  const n = Math.min(Math.floor(x.length / 2), Math.round(rate * seconds));
  for (let i = 0; i < n; i++) {
    const g = 0.5 - 0.5 * Math.cos((Math.PI * i) / n);
    x[i] *= g;
    x[x.length - 1 - i] *= g;
  }
}

export { concatSamples } from '../audio/samples.ts';
