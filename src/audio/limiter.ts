// A streaming look-ahead peak limiter: keeps every sample, and the peaks between samples, under a
// ceiling without clicks. Output lags input by the look-ahead; flush() returns what is held back, so the
// output has exactly as many samples as the input.
//
// Gain: for each sample, the gain that would bring its (inter-sample) peak to the ceiling; the minimum of
// that over the next `lookahead` samples (so the gain is down before the peak arrives), released slowly
// (one pole) and smoothed by a moving average as long as the look-ahead. The average of minimums taken
// over windows that all contain the peak is never above the gain the peak needs: the ceiling holds.

import { concatSamples } from './samples.ts';
import { KERNEL_BLOCK, simdKernels } from './simd/kernels.ts';

const LOOKAHEAD_SECONDS = 0.005;
const RELEASE_SECONDS = 0.08;
// True peak as BS.1770 estimates it: 4x oversampling. The points between two samples come from a
// Hann-windowed sinc over TAPS samples on each side, so the estimate for the gap before sample n-TAPS+1
// is known TAPS samples late.
const TAPS = 8;
const PHASES = [0.25, 0.5, 0.75];
const KERNELS = PHASES.map((phase) => {
  const k = new Float64Array(2 * TAPS);
  for (let j = 0; j < 2 * TAPS; j++) {
    const t = j - (TAPS - 1) - phase; // offset of sample (m - TAPS + 1 + j) from the point m + phase
    const sinc = t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t);
    const hann = 0.5 + 0.5 * Math.cos((Math.PI * t) / TAPS);
    k[j] = sinc * hann;
  }
  return k;
});
const HISTORY = TAPS;
// The largest gain any kernel has from its input to a point between samples: while every sample the
// kernels can see is under ceiling / KERNEL_GAIN, no point between them can reach the ceiling, and the
// (costly) estimate is skipped. Speech spends most of its time there.
const KERNEL_GAIN = Math.max(...KERNELS.map((k) => k.reduce((s, v) => s + Math.abs(v), 0)));

export interface Limiter {
  /** Limited audio for the input so far, less the look-ahead still held. */
  process(x: Float32Array): Float32Array;
  /** The held tail. */
  flush(): Float32Array;
}

const SPAN = 2 * TAPS;
const HALF = TAPS;

// The kernels' symmetries halve the estimate's work: the 0.5 kernel is even about the window's middle and the
// 0.75 kernel is the 0.25 one reversed. With a_j = w_j + w_(15-j) and d_j = w_j - w_(15-j) (j < 8), the 0.5
// point is sum(MID_j a_j), and the 0.25 and 0.75 points are E + O and E - O for E = sum(EVEN_j a_j) and
// O = sum(ODD_j d_j): the larger of the two in size is |E| + |O|. 24 products for three points instead of 48.
const MID = Float64Array.from({ length: HALF }, (_, j) => KERNELS[1][j]);
const EVEN = Float64Array.from({ length: HALF }, (_, j) => (KERNELS[0][j] + KERNELS[0][SPAN - 1 - j]) / 2);
const ODD = Float64Array.from({ length: HALF }, (_, j) => (KERNELS[0][j] - KERNELS[0][SPAN - 1 - j]) / 2);

// The state block kernels.c's limit() works on: these scalars as doubles, the last inputs twice (for the
// inter-sample estimate), then the sliding minimum's indices and gains and the delayed inputs (`size` each) and
// the held gains (look + 1). The order of the scalars is the enum's in kernels.c.
const enum At {
  Ceiling,
  Release,
  Quiet,
  Look,
  Window,
  Size,
  Head,
  Count,
  SmoothSum,
  Held,
  N,
  Out,
  LoudSeen,
  R,
  SlotIn,
  SlotSmooth,
  Unity,
  Scalars,
}
const RECENT = 2 * SPAN;
const DOUBLE = 8;
// MID and EVEN interleaved (their sums run side by side in one SIMD vector), then ODD: as the bytes each call
// copies next to the state.
const COEFFICIENTS = new Uint8Array(Float64Array.from([...Array.from(MID, (m, j) => [m, EVEN[j]]).flat(), ...ODD]).buffer);

/**
 * The per-sample loop runs in WebAssembly (src/audio/simd/kernels.c): in JavaScript it cost more than resampling
 * (3.4 ms per 7 s of speech against 1.2). Between calls the state lives here; each call copies it into the
 * kernels' scratch memory with the samples, and back out.
 */
class PeakLimiter implements Limiter {
  private readonly window: number;
  private readonly state: Uint8Array;

  constructor(
    rate: number,
    ceiling: number,
    private readonly gain: number,
  ) {
    const look = Math.max(1, Math.round(rate * LOOKAHEAD_SECONDS));
    // The peak found at input n may lie between samples n-TAPS and n-TAPS+1: the window is widened by that much.
    this.window = look + HISTORY;
    const size = this.window + 1;
    const bytes = (At.Scalars + RECENT) * DOUBLE + 4 * (3 * size + look + 1);
    this.state = new Uint8Array(Math.ceil(bytes / DOUBLE) * DOUBLE);
    const scalars = new Float64Array(this.state.buffer, 0, At.Scalars);
    scalars[At.Ceiling] = ceiling;
    scalars[At.Release] = 1 - Math.exp(-1 / (rate * RELEASE_SECONDS));
    scalars[At.Quiet] = ceiling / KERNEL_GAIN;
    scalars[At.Look] = look;
    scalars[At.Window] = this.window;
    scalars[At.Size] = size;
    // The held gains start at unity (a gain of 1 needs no entry in the sliding minimum).
    scalars[At.SmoothSum] = look + 1;
    scalars[At.Held] = 1;
    scalars[At.LoudSeen] = -Infinity;
    new Float32Array(this.state.buffer, (At.Scalars + RECENT) * DOUBLE + 4 * 3 * size, look + 1).fill(1);
  }

  process(x: Float32Array): Float32Array {
    return this.run(x, x.length, this.gain);
  }

  flush(): Float32Array {
    // A look-ahead's worth of zeros pushes out every input still held, also of a stream shorter than it.
    return this.run(undefined, this.window, 0);
  }

  /** Feeds `len` inputs (x times gain, or zeros) and returns the samples leaving the look-ahead. */
  private run(x: Float32Array | undefined, len: number, gain: number): Float32Array {
    const simd = simdKernels();
    // Scratch layout, in bytes: the state, the coefficients, a block of input, then its output. The state stays
    // there from block to block, and is copied back at the end.
    const coefficientsAt = this.state.length;
    const xAt = coefficientsAt + COEFFICIENTS.length;
    const yAt = xAt + 4 * KERNEL_BLOCK;
    const floats = simd.scratch(yAt / 4 + KERNEL_BLOCK);
    const bytes = new Uint8Array(floats.buffer, floats.byteOffset, yAt + 4 * KERNEL_BLOCK);
    bytes.set(this.state);
    bytes.set(COEFFICIENTS, coefficientsAt);
    const at = simd.address(0);
    const parts: Float32Array[] = [];
    for (let done = 0; done < len; done += KERNEL_BLOCK) {
      const count = Math.min(KERNEL_BLOCK, len - done);
      if (x) floats.set(x.subarray(done, done + count), xAt / 4);
      const written = simd.limit(at, at + coefficientsAt, x ? at + xAt : 0, at + yAt, count, gain);
      if (written > 0) parts.push(floats.slice(yAt / 4, yAt / 4 + written));
    }
    this.state.set(bytes.subarray(0, this.state.length));
    return parts.length === 1 ? parts[0] : concatSamples(parts);
  }
}

export function createLimiter(rate: number, ceiling: number, gain = 1): Limiter {
  return new PeakLimiter(rate, ceiling, gain);
}
