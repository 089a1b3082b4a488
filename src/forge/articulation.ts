// How fast someone articulates, apart from how much they pause. A reader who stops at every comma and one who
// runs on say new sentences at the same speed if their syllables are equally fast; a rate measured over the
// pauses too (or over the whole duration) reads the first as slow, and a clone fitted to it drags on every
// sentence that has no pause to spend. Here the pauses are cut out of the loudness envelope before its rhythm is
// measured, and what they add up to is reported on its own.
import { bandPass } from '../audio/analysis/filters.ts';
import { FRAME_SECONDS, frameLevels, speechMask } from '../audio/analysis/levels.ts';
import { BRIDGE_SECONDS, envelopeSyllableRate } from '../audio/analysis/rhythm.ts';

export interface Articulation {
  /** Syllables per second of speaking time, pauses left out. */
  syllablesPerSecond: number;
  /** Seconds that sound (pauses left out). */
  speakingSeconds: number;
  /** Seconds of pause between the first and the last sound. */
  pauseSeconds: number;
  /** Pauses between the first and the last sound. */
  pauses: number;
}

/**
 * The centroid of the 1-10 Hz modulation spectrum of the vowel-band (300-3000 Hz) level envelope, with every
 * pause spliced out first: the pauses' long silences would otherwise pull the centroid down, the more so the more
 * a speaker pauses. `samples` may hold any amount of silence.
 */
export function measureArticulation(samples: Float32Array, rate: number): Articulation {
  const levels = frameLevels(bandPass(samples, rate, 1000, 0.5), rate);
  const mask = speechMask(levels, Math.round(BRIDGE_SECONDS / FRAME_SECONDS));
  const env: number[] = [];
  let pauses = 0;
  let pauseFrames = 0;
  let gap = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) {
      gap++;
      continue;
    }
    // A gap counts once speech resumes after it, so the silence before the first sound and after the last is no pause.
    if (gap > 0 && env.length > 0) {
      pauses++;
      pauseFrames += gap;
    }
    gap = 0;
    env.push(Math.max(levels.db[i], levels.silenceDb));
  }
  const frames = env.length;
  const speakingSeconds = frames * FRAME_SECONDS;
  const pauseSeconds = pauseFrames * FRAME_SECONDS;
  if (frames < 10) return { syllablesPerSecond: 0, speakingSeconds, pauseSeconds, pauses };

  const syllablesPerSecond = envelopeSyllableRate(env);
  return { syllablesPerSecond, speakingSeconds, pauseSeconds, pauses };
}
