/**
 * Low-pass and keep every `factor`-th sample (windowed-sinc FIR, Blackman window). Pitch analysis only
 * needs the band below ~4 kHz, and working at ~8 kHz makes it several times cheaper.
 */
export function decimate(x: Float32Array, factor: number): Float32Array {
  if (factor <= 1) return x;
  const half = 4 * factor;
  const taps = new Float64Array(2 * half + 1);
  const cutoff = 0.45 / factor; // cycles per input sample, a little under the new Nyquist
  let sum = 0;
  for (let k = -half; k <= half; k++) {
    const sinc = k === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * k) / (Math.PI * k);
    const w = 0.42 + 0.5 * Math.cos((Math.PI * k) / half) + 0.08 * Math.cos((2 * Math.PI * k) / half);
    taps[k + half] = sinc * w;
    sum += sinc * w;
  }
  for (let i = 0; i < taps.length; i++) taps[i] /= sum;
  const out = new Float32Array(Math.floor(x.length / factor));
  for (let m = 0; m < out.length; m++) {
    const c = m * factor;
    let acc = 0;
    const from = Math.max(-half, -c);
    const to = Math.min(half, x.length - 1 - c);
    for (let k = from; k <= to; k++) acc += taps[k + half] * x[c + k];
    out[m] = acc;
  }
  return out;
}

/** Coefficients of a biquad section, normalised so a0 = 1. */
export interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** Runs one biquad section forward over `x` into `y` (direct form I) and returns `y`. */
export function runBiquad<T extends Float32Array | Float64Array>(x: ArrayLike<number>, f: Biquad, y: T): T {
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const v = f.b0 * x[i] + f.b1 * x1 + f.b2 * x2 - f.a1 * y1 - f.a2 * y2;
    x2 = x1;
    x1 = x[i];
    y2 = y1;
    y1 = v;
    y[i] = v;
  }
  return y;
}

/** RBJ band-pass biquad (constant 0 dB peak gain), run forward once. */
export function bandPass(x: Float32Array, rate: number, centerHz: number, q: number): Float32Array {
  const w0 = (2 * Math.PI * Math.min(centerHz, rate * 0.45)) / rate;
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  const f = { b0: alpha / a0, b1: 0, b2: -alpha / a0, a1: (-2 * Math.cos(w0)) / a0, a2: (1 - alpha) / a0 };
  return runBiquad(x, f, new Float32Array(x.length));
}
