// A streaming look-ahead peak limiter: keeps every sample, and the peaks between samples, under a
// ceiling without clicks. Output lags input by the look-ahead; flush() returns what is held back, so the
// output has exactly as many samples as the input.
//
// Gain: for each sample, the gain that would bring its (inter-sample) peak to the ceiling; the minimum of
// that over the next `lookahead` samples (so the gain is down before the peak arrives), released slowly
// (one pole) and smoothed by a moving average as long as the look-ahead. The average of minimums taken
// over windows that all contain the peak is never above the gain the peak needs: the ceiling holds.

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

/** Largest |value| between the two middle samples of `ring` (2*TAPS samples, oldest at `at`), 4x oversampled. */
function interSamplePeak(ring: Float64Array, at: number): number {
  let peak = 0;
  for (const k of KERNELS) {
    let v = 0;
    for (let j = 0; j < k.length; j++) v += k[j] * ring[(at + j) % ring.length];
    if (Math.abs(v) > peak) peak = Math.abs(v);
  }
  return peak;
}

export function createLimiter(rate: number, ceiling: number, gain = 1): Limiter {
  const look = Math.max(1, Math.round(rate * LOOKAHEAD_SECONDS));
  // The peak found at input n may lie between samples n-TAPS and n-TAPS+1: the window is widened by that much.
  const window = look + HISTORY;
  const release = 1 - Math.exp(-1 / (rate * RELEASE_SECONDS));
  const needed = new Float32Array(window + 1).fill(1); // gain each of the last window+1 inputs needs
  const delayed = new Float32Array(window + 1); // the inputs themselves
  const smooth = new Float32Array(look + 1).fill(1); // the last look+1 held gains, for the moving average
  let smoothSum = look + 1;
  const recent = new Float64Array(2 * TAPS); // the last inputs, for the inter-sample estimate
  let held = 1;
  let n = 0; // inputs seen
  let out = 0; // outputs produced
  const quiet = ceiling / KERNEL_GAIN;
  let loudSeen = -Infinity; // the last input over `quiet`
  let limitedSeen = -Infinity; // the last input that needed a gain under 1

  const push = (v: number): number | undefined => {
    recent[n % recent.length] = v;
    if (Math.abs(v) > quiet) loudSeen = n;
    const peak = n - loudSeen < recent.length ? Math.max(Math.abs(v), interSamplePeak(recent, (n + 1) % recent.length)) : 0;
    const slot = n % (window + 1);
    needed[slot] = peak > ceiling ? ceiling / peak : 1;
    if (peak > ceiling) limitedSeen = n;
    delayed[slot] = v;
    n++;
    if (n <= window) return undefined;
    // The sample leaving now is the oldest one; the window ahead of it is the whole buffer (all ones
    // when nothing in it needed limiting).
    let min = 1;
    if (n - 1 - limitedSeen <= window) for (let i = 0; i <= window; i++) if (needed[i] < min) min = needed[i];
    held = min < held ? min : Math.min(min, held + (1 - held) * release);
    // Nothing came before the first sample: the average starts from its gain, not from unity.
    if (out === 0) {
      smooth.fill(held);
      smoothSum = held * (look + 1);
    }
    const s = out % (look + 1);
    smoothSum += held - smooth[s];
    smooth[s] = held;
    const leaving = delayed[n % (window + 1)];
    out++;
    return leaving * Math.min(1, smoothSum / (look + 1));
  };

  return {
    process(x) {
      const y = new Float32Array(Math.max(0, Math.min(x.length, n + x.length - window)));
      let k = 0;
      for (let i = 0; i < x.length; i++) {
        const v = push(x[i] * gain);
        if (v !== undefined) y[k++] = v;
      }
      return y;
    },
    flush() {
      const rest = Math.min(n, window);
      const y = new Float32Array(rest);
      for (let i = 0; i < rest; i++) y[i] = push(0) ?? 0;
      return y;
    },
  };
}
