// Integrated loudness (ITU-R BS.1770-4 / EBU R128) of a mono signal: K-weighting, 400 ms blocks every
// 100 ms, an absolute gate at -70 LUFS and a relative gate 10 LU under the ungated level. No npm meter
// was both kept and free of native code; this is the standard's own recipe, checked against ffmpeg's ebur128.
import { runBiquad, type Biquad } from './analysis/filters.ts';

// The standard gives the filters at 48 kHz; these are the analogue prototypes behind them
// (as libebur128 and pyloudnorm derive them), so any sample rate gets the same response.
function highShelf(rate: number): Biquad {
  const f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  const q = 0.7071752369554196;
  const k = Math.tan((Math.PI * f0) / rate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  const a0 = 1 + k / q + k * k;
  return {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
}

function highPass(rate: number): Biquad {
  const f0 = 38.13547087602444;
  const q = 0.5003270373238773;
  const k = Math.tan((Math.PI * f0) / rate);
  const a0 = 1 + k / q + k * k;
  return { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / q + k * k) / a0 };
}

function filter(x: Float64Array, f: Biquad): Float64Array {
  return runBiquad(x, f, new Float64Array(x.length));
}

const ABSOLUTE_GATE_LUFS = -70;
const RELATIVE_GATE_LU = 10;
const BLOCK_SECONDS = 0.4;
const STEP_SECONDS = 0.1;

const toLufs = (meanSquare: number): number => -0.691 + 10 * Math.log10(meanSquare);

/** Integrated loudness in LUFS; -Infinity for silence (nothing above the absolute gate). */
export function integratedLoudness(samples: Float32Array, rate: number): number {
  const weighted = filter(filter(Float64Array.from(samples), highShelf(rate)), highPass(rate));
  const block = Math.round(rate * BLOCK_SECONDS);
  const step = Math.round(rate * STEP_SECONDS);
  const powers: number[] = [];
  // A signal shorter than one block is measured as one block of its own length.
  const last = Math.max(0, weighted.length - block);
  for (let at = 0; at <= last; at += step) {
    const end = Math.min(weighted.length, at + block);
    let sum = 0;
    for (let i = at; i < end; i++) sum += weighted[i] * weighted[i];
    if (end > at) powers.push(sum / (end - at));
  }
  const aboveAbsolute = powers.filter((p) => p > 0 && toLufs(p) > ABSOLUTE_GATE_LUFS);
  if (aboveAbsolute.length === 0) return -Infinity;
  const relativeGate = toLufs(mean(aboveAbsolute)) - RELATIVE_GATE_LU;
  const gated = aboveAbsolute.filter((p) => toLufs(p) > relativeGate);
  return toLufs(mean(gated));
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export const dbToGain = (db: number): number => 10 ** (db / 20);
