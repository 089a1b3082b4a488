// Vocal tract length, the cue besides pitch that tells a listener a man from a woman (or a child): the
// formants of a longer tract sit lower and closer together. Estimated as the formant spacing of a
// uniform tube (F_i = (i - 1/2) x spacing) fitted to F1-F3 of each voiced frame, from an LPC envelope.
import { decimate } from './filters.ts';
import { pitchTrack, quantile } from './pitch.ts';

const LPC_RATE = 8000;
const ORDER = 10;
const WINDOW_SECONDS = 0.025;
const ENVELOPE_POINTS = 256;

/** Autocorrelation LPC (Levinson-Durbin): a[0] = 1, a[1..order]; null for a silent or singular frame. */
function lpc(frame: Float64Array, order: number): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let s = 0;
    for (let i = lag; i < frame.length; i++) s += frame[i] * frame[i - lag];
    r[lag] = s;
  }
  if (r[0] <= 0) return null;
  r[0] *= 1 + 1e-9;
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let err = r[0];
  for (let i = 1; i <= order; i++) {
    let acc = r[i];
    for (let j = 1; j < i; j++) acc += a[j] * r[i - j];
    const k = -acc / err;
    const prev = Float64Array.from(a);
    for (let j = 1; j < i; j++) a[j] = prev[j] + k * prev[i - j];
    a[i] = k;
    err *= 1 - k * k;
    if (err <= 0) return null;
  }
  return a;
}

/** The first three peaks of the LPC envelope between 200 and 3700 Hz, or null if there are fewer. */
function firstFormants(a: Float64Array): [number, number, number] | null {
  const env = new Float64Array(ENVELOPE_POINTS);
  for (let k = 0; k < ENVELOPE_POINTS; k++) {
    const w = (Math.PI * k) / ENVELOPE_POINTS;
    let re = 0;
    let im = 0;
    for (let j = 0; j < a.length; j++) {
      re += a[j] * Math.cos(w * j);
      im -= a[j] * Math.sin(w * j);
    }
    env[k] = -Math.log(re * re + im * im + 1e-20);
  }
  const hzPerPoint = LPC_RATE / 2 / ENVELOPE_POINTS;
  const found: number[] = [];
  for (let k = 1; k < ENVELOPE_POINTS - 1 && found.length < 3; k++) {
    const hz = k * hzPerPoint;
    if (hz < 200 || hz > 3700) continue;
    if (env[k] > env[k - 1] && env[k] >= env[k + 1]) found.push(hz);
  }
  return found.length === 3 ? [found[0], found[1], found[2]] : null;
}

/** Median formant spacing of the voiced frames in Hz (about 1000 for adult men, 1150-1250 for women); 0 if none. */
export function formantSpacing(samples: Float32Array, rate: number): number {
  const factor = Math.max(1, Math.round(rate / LPC_RATE));
  const x = decimate(samples, factor);
  const xr = rate / factor;
  const track = pitchTrack(samples, rate);
  const w = Math.round(WINDOW_SECONDS * xr);
  const frame = new Float64Array(w);
  const spacings: number[] = [];
  for (let f = 0; f < track.f0.length; f++) {
    if (!(track.f0[f] > 0)) continue;
    const centre = Math.round(f * track.hopSeconds * xr);
    const start = centre - Math.floor(w / 2);
    if (start < 1 || start + w > x.length) continue;
    for (let i = 0; i < w; i++) {
      const pre = x[start + i] - 0.97 * x[start + i - 1];
      frame[i] = pre * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (w - 1)));
    }
    const a = lpc(frame, ORDER);
    const formants = a && firstFormants(a);
    if (!formants) continue;
    // Least squares through the origin: F_i = (i - 1/2) x spacing.
    let num = 0;
    let den = 0;
    formants.forEach((hz, i) => {
      num += (i + 0.5) * hz;
      den += (i + 0.5) * (i + 0.5);
    });
    spacings.push(num / den);
  }
  if (spacings.length === 0) return 0;
  return quantile(Float64Array.from(spacings).sort(), 0.5);
}
