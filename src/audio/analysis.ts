// Speaker measurements for voice cloning and for tests: all pure TypeScript and synchronous.
import { bandPass } from './analysis/filters.ts';
import { fft, nextPowerOfTwo } from './analysis/fft.ts';
import { FRAME_SECONDS, frameLevels, speechMask } from './analysis/levels.ts';

export { measurePitch, pitchTrack, type PitchStats, type PitchTrack } from './analysis/pitch.ts';

/** Internal pauses are kept up to this long; anything longer is shortened to it. */
const MAX_PAUSE_SECONDS = 0.3;
/** Sound kept around speech at the edges, so onsets and releases are not clipped. */
const EDGE_SECONDS = 0.05;

/**
 * Cuts leading and trailing silence and shortens long internal pauses to 300 ms (short pauses, which are
 * part of how someone speaks, are left alone). Returns an empty array if there is no speech at all.
 */
export function trimSilence(samples: Float32Array, rate: number): Float32Array {
  const levels = frameLevels(samples, rate);
  const mask = speechMask(levels, 0);
  const hop = levels.hop;
  const keepPause = Math.round(MAX_PAUSE_SECONDS / FRAME_SECONDS);
  const edge = Math.round(EDGE_SECONDS / FRAME_SECONDS);
  const first = mask.indexOf(1);
  if (first < 0) return new Float32Array(0);
  const last = mask.lastIndexOf(1);
  const pieces: Array<[number, number]> = [];
  let runStart = Math.max(0, first - edge);
  for (let i = first; i <= last;) {
    if (mask[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j <= last && !mask[j]) j++;
    if (j - i > keepPause) {
      // Keep half of the allowed pause on each side of the cut.
      pieces.push([runStart, i + keepPause / 2]);
      runStart = j - keepPause / 2;
    }
    i = j;
  }
  pieces.push([runStart, Math.min(mask.length, last + 1 + edge)]);
  let total = 0;
  const ranges = pieces.map(([a, b]) => {
    const from = Math.floor(a) * hop;
    const to = Math.min(samples.length, Math.floor(b) * hop);
    total += to - from;
    return [from, to] as const;
  });
  const out = new Float32Array(total);
  let at = 0;
  for (const [from, to] of ranges) {
    out.set(samples.subarray(from, to), at);
    at += to - from;
  }
  return out;
}

export interface SpeakingRate {
  syllablesPerSecond: number;
  syllables: number;
  /** Seconds of speech the rate is over: sounding frames plus pauses shorter than 300 ms. */
  speechSeconds: number;
}

/**
 * Syllable nuclei counted as peaks of the vowel-band (300-3000 Hz) energy envelope, smoothed over 50 ms,
 * that stand at least 4 dB over the dips on both sides and are 100 ms apart. It is built to be
 * repeatable (the same render measures the same, a faster render measures faster) more than to match a
 * phonetician's count.
 */
export function measureSpeakingRate(samples: Float32Array, rate: number): SpeakingRate {
  const band = bandPass(samples, rate, 1000, 0.5);
  const levels = frameLevels(band, rate);
  const mask = speechMask(levels, Math.round(MAX_PAUSE_SECONDS / FRAME_SECONDS));
  const env = smooth(levels.db, 5);
  const minGap = Math.round(0.1 / FRAME_SECONDS);
  const prominence = 4;

  // Local maxima inside speech, kept if their topographic prominence (height over the higher of the two
  // lowest points reached before climbing to higher ground on either side) is enough. A flat top counts
  // once, at its first frame: ties stop the search to the left but not to the right.
  const kept: number[] = [];
  for (let i = 0; i < env.length; i++) {
    const before = i > 0 ? env[i - 1] : -Infinity;
    const after = i + 1 < env.length ? env[i + 1] : -Infinity;
    if (!mask[i] || env[i] <= levels.silenceDb || env[i] <= before || env[i] < after) continue;
    // Running off either end of the recording counts as reaching silence.
    let leftBase = env[i];
    let k = i - 1;
    for (; k >= 0 && env[k] < env[i]; k--) leftBase = Math.min(leftBase, env[k]);
    if (k < 0) leftBase = Math.min(leftBase, levels.silenceDb);
    let rightBase = env[i];
    for (k = i + 1; k < env.length && env[k] <= env[i]; k++) rightBase = Math.min(rightBase, env[k]);
    if (k >= env.length) rightBase = Math.min(rightBase, levels.silenceDb);
    if (env[i] - Math.max(leftBase, rightBase) < prominence) continue;
    const prev = kept[kept.length - 1];
    if (prev !== undefined && i - prev < minGap) {
      if (env[i] > env[prev]) kept[kept.length - 1] = i;
      continue;
    }
    kept.push(i);
  }
  let speechFrames = 0;
  for (const m of mask) speechFrames += m;
  const speechSeconds = speechFrames * FRAME_SECONDS;
  return {
    syllables: kept.length,
    speechSeconds,
    syllablesPerSecond: speechSeconds > 0 ? kept.length / speechSeconds : 0,
  };
}

function smooth(v: Float64Array, width: number): Float64Array {
  const out = new Float64Array(v.length);
  const half = Math.floor(width / 2);
  for (let i = 0; i < v.length; i++) {
    let s = 0;
    let n = 0;
    for (let k = Math.max(0, i - half); k <= Math.min(v.length - 1, i + half); k++) {
      s += v[k];
      n++;
    }
    out[i] = s / n;
  }
  return out;
}

export interface SpectralFeatures {
  /** Centre of mass of the long-term magnitude spectrum, in Hz. */
  centroidHz: number;
  /** Slope of the long-term spectrum in dB per octave over 100 Hz-5 kHz (negative: darker voice). */
  tilt: number;
  /** Frequency under which 85 % of the energy lies, in Hz. */
  rolloffHz: number;
  /** Spectral flatness 0..1 (geometric over arithmetic mean of power): noise-like near 1, tonal near 0. */
  flatness: number;
}

const SPECTRUM_TOP_HZ = 8000;
const TILT_LOW_HZ = 100;
const TILT_HIGH_HZ = 5000;

/**
 * Long-term spectrum of the sounding frames (~40 ms Hann windows, silence skipped), reduced to a few
 * numbers that describe timbre. Everything is taken below 8 kHz (or Nyquist) so recordings at
 * different rates compare.
 */
export function spectralFeatures(samples: Float32Array, rate: number): SpectralFeatures {
  const n = nextPowerOfTwo(Math.round(rate * 0.04));
  const levels = frameLevels(samples, rate);
  const window = new Float64Array(n);
  for (let i = 0; i < n; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  const bins = n / 2 + 1;
  const power = new Float64Array(bins);
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  let used = 0;
  for (let start = 0; start + n <= samples.length; start += n) {
    const centre = Math.min(levels.db.length - 1, Math.floor((start + n / 2) / levels.hop));
    if (levels.db[centre] <= levels.silenceDb) continue;
    for (let i = 0; i < n; i++) {
      re[i] = samples[start + i] * window[i];
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k < bins; k++) power[k] += re[k] * re[k] + im[k] * im[k];
    used++;
  }
  if (used === 0) return { centroidHz: 0, tilt: 0, rolloffHz: 0, flatness: 0 };
  const binHz = rate / n;
  const top = Math.min(bins - 1, Math.floor(Math.min(SPECTRUM_TOP_HZ, rate / 2) / binHz));
  const low = Math.max(1, Math.ceil(50 / binHz));

  let magSum = 0;
  let weighted = 0;
  let energy = 0;
  let logSum = 0;
  for (let k = low; k <= top; k++) {
    const mag = Math.sqrt(power[k]);
    magSum += mag;
    weighted += mag * k * binHz;
    energy += power[k];
    logSum += Math.log(power[k] + 1e-20);
  }
  const count = top - low + 1;
  let acc = 0;
  let rolloff = top * binHz;
  for (let k = low; k <= top; k++) {
    acc += power[k];
    if (acc >= 0.85 * energy) {
      rolloff = k * binHz;
      break;
    }
  }

  // Least-squares line through (log2 f, dB) over the tilt band.
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  let m = 0;
  const tiltTop = Math.min(top, Math.floor(TILT_HIGH_HZ / binHz));
  for (let k = Math.max(low, Math.ceil(TILT_LOW_HZ / binHz)); k <= tiltTop; k++) {
    const xv = Math.log2(k * binHz);
    const yv = 10 * Math.log10(power[k] / used + 1e-20);
    sx += xv;
    sy += yv;
    sxx += xv * xv;
    sxy += xv * yv;
    m++;
  }
  const tilt = m > 1 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : 0;

  return {
    centroidHz: magSum > 0 ? weighted / magSum : 0,
    tilt,
    rolloffHz: rolloff,
    flatness: energy > 0 ? Math.exp(logSum / count) / (energy / count) : 0,
  };
}
