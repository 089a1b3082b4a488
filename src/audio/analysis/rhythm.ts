// Speaking rate from the rhythm of the loudness envelope, without counting peaks. Peak counting depends on
// how crisply a voice separates its syllables (HTS and flite's slt blur them and read ~15 % "slower" than
// diphone voices speaking equally fast); where the envelope's energy sits on the modulation-frequency axis
// depends much less on that.
import { bandPass } from './filters.ts';
import { fft, nextPowerOfTwo } from './fft.ts';
import { FRAME_SECONDS, frameLevels, speechMask } from './levels.ts';

/** The band of syllabic modulation: slower is phrasing, faster is segments. */
const LOW_HZ = 1;
const HIGH_HZ = 10;
/**
 * Modulation centroid per syllable/s: read from nine voices (festival HTS slt and kal, flite slt, kal16,
 * awb, rms, two espeak-ng voices, a LibriVox reader) reading texts of known syllable count (mean 0.81).
 */
const CENTROID_PER_SYLLABLE_RATE = 0.81;
/**
 * Gaps shorter than this (stop closures, the breath between words) still count as speaking; longer ones are
 * pauses. Articulation-rate studies put the line between 100 and 250 ms.
 */
export const BRIDGE_SECONDS = 0.12;

export interface SyllabicRate {
  /** Estimated syllables per second of speech. */
  syllablesPerSecond: number;
  /** Seconds that sound, gaps under 120 ms included: what a duration comparison of the same text uses. */
  soundingSeconds: number;
}

/**
 * Centroid of the 1-10 Hz modulation spectrum of the vowel-band (300-3000 Hz) level envelope, in dB and
 * floored at the silence threshold so that pauses do not dominate, scaled to syllables per second.
 */
export function measureSyllabicRate(samples: Float32Array, rate: number): SyllabicRate {
  const levels = frameLevels(bandPass(samples, rate, 1000, 0.5), rate);
  const mask = speechMask(levels, Math.round(BRIDGE_SECONDS / FRAME_SECONDS));
  let sounding = 0;
  for (const m of mask) sounding += m;
  const soundingSeconds = sounding * FRAME_SECONDS;
  const frames = levels.db.length;
  if (sounding < 10) return { syllablesPerSecond: 0, soundingSeconds };

  const env = new Float64Array(frames);
  for (let i = 0; i < frames; i++) env[i] = Math.max(levels.db[i], levels.silenceDb);
  return { syllablesPerSecond: envelopeSyllableRate(env), soundingSeconds };
}

/**
 * Syllables per second from a level envelope (dB, one value per analysis frame, floored at the silence
 * threshold): the centroid of its 1-10 Hz modulation spectrum, scaled.
 */
export function envelopeSyllableRate(env: ArrayLike<number>): number {
  const frames = env.length;
  let mean = 0;
  for (let i = 0; i < frames; i++) mean += env[i];
  mean /= frames;
  const n = nextPowerOfTwo(frames * 2);
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < frames; i++) re[i] = (env[i] - mean) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / Math.max(1, frames - 1)));
  fft(re, im);
  const frameRate = 1 / FRAME_SECONDS;
  let weighted = 0;
  let total = 0;
  for (let k = 1; k < n / 2; k++) {
    const f = (k * frameRate) / n;
    if (f < LOW_HZ || f > HIGH_HZ) continue;
    const p = re[k] * re[k] + im[k] * im[k];
    weighted += p * f;
    total += p;
  }
  return total > 0 ? weighted / total / CENTROID_PER_SYLLABLE_RATE : 0;
}
