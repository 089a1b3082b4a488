import { decimate } from './filters.ts';
import { frameLevels } from './levels.ts';

export interface PitchStats {
  /** Median fundamental frequency over voiced frames (0 when nothing is voiced). */
  medianHz: number;
  p10Hz: number;
  p90Hz: number;
  /** Share of the non-silent frames that are voiced (0..1). */
  voicedFraction: number;
}

export interface PitchTrack {
  /** Seconds between frames. */
  hopSeconds: number;
  /** f0 per frame in Hz, 0 where unvoiced or silent. */
  f0: Float64Array;
  /** Frames that carry sound at all (voiced or not). */
  audibleFrames: number;
}

const MIN_HZ = 50;
const MAX_HZ = 500;
const HOP_SECONDS = 0.01;
const WINDOW_SECONDS = 0.025; // + the 20 ms longest lag: ~45 ms of signal per frame
const THRESHOLD = 0.15; // YIN's absolute threshold on the normalised difference
const MAX_APERIODICITY = 0.3; // above this at the chosen lag the frame is not voiced
const ANALYSIS_RATE = 8000;

interface Candidate {
  tau: number;
  value: number;
}

/** Per-frame YIN state: the cumulative-mean-normalised difference function d'(tau). */
function normalisedDifference(x: Float64Array, start: number, w: number, maxTau: number, d: Float64Array): void {
  d[0] = 1;
  let running = 0;
  for (let tau = 1; tau <= maxTau; tau++) {
    let s = 0;
    for (let j = start, end = start + w; j < end; j++) {
      const diff = x[j] - x[j + tau];
      s += diff * diff;
    }
    running += s;
    d[tau] = running > 0 ? (s * tau) / running : 1;
  }
}

/** The first dip under the threshold (walked down to its bottom), else the deepest point. */
function pickLag(d: Float64Array, minTau: number, maxTau: number): Candidate {
  for (let tau = minTau; tau < maxTau; tau++) {
    if (d[tau] < THRESHOLD) {
      while (tau + 1 < maxTau && d[tau + 1] < d[tau]) tau++;
      return { tau, value: d[tau] };
    }
  }
  let best = minTau;
  for (let tau = minTau + 1; tau <= maxTau; tau++) if (d[tau] < d[best]) best = tau;
  return { tau: best, value: d[best] };
}

/** Parabolic interpolation around an integer lag for a sub-sample period. */
function refine(d: Float64Array, tau: number, maxTau: number): number {
  if (tau <= 1 || tau >= maxTau) return tau;
  const a = d[tau - 1];
  const b = d[tau];
  const c = d[tau + 1];
  const den = a - 2 * b + c;
  return den > 0 ? tau + (0.5 * (a - c)) / den : tau;
}

/** Deepest point of d' within ±6 % of a lag (for checking the octave above or below). */
function dipNear(d: Float64Array, lag: number, minTau: number, maxTau: number): Candidate | undefined {
  const lo = Math.max(minTau, Math.floor(lag * 0.94));
  const hi = Math.min(maxTau, Math.ceil(lag * 1.06));
  if (lo > hi) return undefined;
  let best = lo;
  for (let t = lo + 1; t <= hi; t++) if (d[t] < d[best]) best = t;
  return { tau: best, value: d[best] };
}

/** YIN pitch track on ~45 ms frames every 10 ms, 50-500 Hz, computed at ~8 kHz. */
export function pitchTrack(samples: Float32Array, rate: number): PitchTrack {
  // At most ~8 kHz (22.05 kHz -> 7350 Hz): the 50-500 Hz search is then cheap and still well sampled.
  const factor = Math.max(1, Math.ceil(rate / ANALYSIS_RATE - 0.01));
  // Float64 for the inner loop, which V8 runs measurably faster than on Float32 reads.
  const x = Float64Array.from(decimate(samples, factor));
  const r = rate / factor;
  const hop = Math.max(1, Math.round(r * HOP_SECONDS));
  const w = Math.round(r * WINDOW_SECONDS);
  const maxTau = Math.ceil(r / MIN_HZ);
  const minTau = Math.max(2, Math.floor(r / MAX_HZ));
  const levels = frameLevels(samples, rate);
  const levelHop = levels.hop / factor;
  const frames = x.length >= w + maxTau + 1 ? Math.floor((x.length - w - maxTau - 1) / hop) + 1 : 0;
  const f0 = new Float64Array(frames);
  const lags = new Float64Array(frames);
  const curves: Array<Float64Array | undefined> = new Array(frames);
  let audible = 0;
  const d = new Float64Array(maxTau + 1);
  for (let f = 0; f < frames; f++) {
    const start = f * hop;
    // The level of the frame's centre decides whether there is anything to analyse.
    const centre = Math.min(levels.db.length - 1, Math.floor((start + (w + maxTau) / 2) / levelHop));
    if (levels.db[centre] <= levels.silenceDb) continue;
    audible++;
    normalisedDifference(x, start, w, maxTau, d);
    const pick = pickLag(d, minTau, maxTau);
    if (pick.value > MAX_APERIODICITY) continue;
    const tau = refine(d, pick.tau, maxTau);
    lags[f] = tau;
    f0[f] = r / tau;
    curves[f] = Float64Array.from(d);
  }
  correctOctaves(f0, lags, curves, r, minTau, maxTau);
  return { hopSeconds: hop / r, f0, audibleFrames: audible };
}

/**
 * YIN's first-dip rule avoids most octave-down errors; what remains are frames that jumped an octave
 * against the speaker's median. Such a frame moves to the other octave if the signal is just as
 * periodic there (its d' dip is nearly as deep), which a real octave jump in speech is not.
 */
function correctOctaves(
  f0: Float64Array,
  lags: Float64Array,
  curves: Array<Float64Array | undefined>,
  r: number,
  minTau: number,
  maxTau: number,
): void {
  const median = medianOf(f0.filter((v) => v > 0));
  if (median === 0) return;
  for (let f = 0; f < f0.length; f++) {
    const d = curves[f];
    if (!d || f0[f] === 0) continue;
    const ratio = f0[f] / median;
    const target = ratio > 1.6 && ratio < 2.5 ? lags[f] * 2 : ratio > 0.4 && ratio < 0.625 ? lags[f] / 2 : 0;
    if (target === 0) continue;
    const alt = dipNear(d, target, minTau, maxTau);
    const here = d[Math.round(lags[f])];
    if (alt && alt.value < Math.max(MAX_APERIODICITY, here + 0.1)) {
      const tau = refine(d, alt.tau, maxTau);
      lags[f] = tau;
      f0[f] = r / tau;
    }
  }
}

function medianOf(v: Float64Array): number {
  return quantile(Float64Array.from(v).sort(), 0.5);
}

/** Linear-interpolated quantile of sorted values (0 for none). */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function measurePitch(samples: Float32Array, rate: number): PitchStats {
  const track = pitchTrack(samples, rate);
  const voiced = Float64Array.from(track.f0.filter((v) => v > 0)).sort();
  return {
    medianHz: quantile(voiced, 0.5),
    p10Hz: quantile(voiced, 0.1),
    p90Hz: quantile(voiced, 0.9),
    voicedFraction: track.audibleFrames > 0 ? voiced.length / track.audibleFrames : 0,
  };
}
