/** Level analysis on 10 ms frames, shared by silence trimming, voicing and syllable counting. */

export const FRAME_SECONDS = 0.01;
const FLOOR_DB = -100;

export interface FrameLevels {
  /** Samples per frame. */
  hop: number;
  /** RMS level of each frame in dBFS. */
  db: Float64Array;
  /** Level below which a frame counts as silence. */
  silenceDb: number;
}

export function frameLevels(x: Float32Array, rate: number): FrameLevels {
  const hop = Math.max(1, Math.round(rate * FRAME_SECONDS));
  const frames = Math.ceil(x.length / hop);
  const db = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    const end = Math.min(x.length, (f + 1) * hop);
    for (let i = f * hop; i < end; i++) s += x[i] * x[i];
    const ms = s / Math.max(1, end - f * hop);
    db[f] = ms > 0 ? Math.max(FLOOR_DB, 10 * Math.log10(ms)) : FLOOR_DB;
  }
  return { hop, db, silenceDb: silenceThreshold(db) };
}

/**
 * 35 dB under the loud end of the recording (its 95th percentile, so a click does not set it), never
 * under -60 dBFS: quiet room noise stays silence, soft consonants stay speech.
 */
function silenceThreshold(db: Float64Array): number {
  if (db.length === 0) return 0;
  const sorted = Float64Array.from(db).sort();
  const loud = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
  return Math.max(-60, loud - 35);
}

/**
 * Which frames belong to speech: frames over the threshold, in runs of at least 30 ms (a lone click is
 * not speech), with gaps shorter than `bridgeFrames` filled in.
 */
export function speechMask(levels: FrameLevels, bridgeFrames: number): Uint8Array {
  const { db, silenceDb } = levels;
  const mask = new Uint8Array(db.length);
  for (let i = 0; i < db.length;) {
    if (db[i] <= silenceDb) {
      i++;
      continue;
    }
    let j = i;
    while (j < db.length && db[j] > silenceDb) j++;
    if (j - i >= 3) mask.fill(1, i, j);
    i = j;
  }
  let last = -1;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    if (last >= 0 && i - last - 1 < bridgeFrames) mask.fill(1, last + 1, i);
    last = i;
  }
  return mask;
}

/**
 * Frames averaged into one loudness reading: 50 ms follows syllables (each lasts 150-300 ms) while one period
 * of a low voice (up to ~14 ms) no longer ripples the level.
 */
const LOUDNESS_FRAMES = 5;

/**
 * How far the loudness of the sounding parts spreads: dB from the 10th to the 90th percentile of the 50 ms level,
 * pauses left out. Speech rises and falls with its syllables (vowels loud, consonants and gaps between words
 * soft): read speech spreads 18-24 dB, under as much white noise as speech still 4-7 dB. A synthetic tone keeps
 * one loudness whatever its pitch does (under 1 dB), even where its harmonics sweeping through a band fake a
 * syllable rhythm in that band.
 */
export function loudnessRange(x: Float32Array, rate: number): number {
  const { db, silenceDb } = frameLevels(x, rate);
  const readings: number[] = [];
  for (let i = 0; i + LOUDNESS_FRAMES <= db.length; i++) {
    let power = 0;
    for (let k = i; k < i + LOUDNESS_FRAMES; k++) power += 10 ** (db[k] / 10);
    const level = 10 * Math.log10(power / LOUDNESS_FRAMES);
    if (level > silenceDb) readings.push(level);
  }
  if (readings.length === 0) return 0;
  const sorted = Float64Array.from(readings).sort();
  // Nearest rank: pitch.ts has the interpolated quantile, but it imports this file.
  const at = (q: number): number => sorted[Math.round((sorted.length - 1) * q)];
  return at(0.9) - at(0.1);
}
